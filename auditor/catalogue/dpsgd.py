"""One DP-SGD step as an audit target (Abadi et al. 2016), written with NumPy.

The step computes per-example gradients of the logistic loss of a linear model at fixed
weights, clips each to L2 norm ``clip``, sums them and adds N(0, (noise_multiplier clip)^2 I).
The adversary sees the noisy sum (the white-box audit of one step). Its claimed profile comes
from its noise multiplier through dp_accounting: ``GaussianDpEvent(noise_multiplier)``, which is
mu-GDP with mu = 1 / noise_multiplier under add/remove of one example.

The canary-gradient pair (:func:`canary_pair`): D is a fixed batch, D' the same batch plus one
canary example whose gradient points along a coordinate no other example uses, with norm far
above the clipping norm. A correct step then releases N(s, sigma^2 I) against N(s + g, sigma^2 I)
with ||g|| = clip: exactly the Gaussian trade-off curve of mu = 1 / noise_multiplier, so the
audit's certified mu can reach the claim and no further.

Broken variants (:data:`STEPS`): ``no_clip`` forgets to clip (the canary's whole gradient goes
in), ``noise_per_batch`` divides the noise by the batch size as if it were added to the mean
(a common slip when the noisy sum is averaged afterwards), ``half_noise`` adds half the noise.

:class:`OpacusStep` is the same step through Opacus's ``DPOptimizer`` (Yousefpour et al. 2021;
torch on the CPU, optional: ``pip install -e '.[opacus]'``): Opacus computes the per-sample
gradients, clips, sums and adds the noise, and updates zero weights with learning rate 1; the
release is minus the updated weights, the noisy gradient sum.

Usage::

    dpaudit audit auditor.catalogue.dpsgd:step --profile gdp:1 \\
        --pairs <(python -c "import auditor.catalogue.dpsgd as d; d.print_pairs()")

or from Python: ``audit(step, [canary_pair()], profile=claimed_event())``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "OPACUS_STEPS",
    "STEPS",
    "DPSGDStep",
    "OpacusStep",
    "canary_pair",
    "claimed_event",
    "print_pairs",
    "step",
]

DIM = 8
BATCH = 16
CANARY_SCALE = 20.0  # the canary's feature: its gradient has norm 10, ten times the clip


@dataclass(frozen=True, slots=True)
class DPSGDStep:
    """A noisy clipped gradient sum: ``data`` is a list of examples ``[x_1, ..., x_d, y]``."""

    noise_multiplier: float = 1.0
    clip: float = 1.0
    clip_examples: bool = True
    noise_factor: float = 1.0  # the noise actually added, as a multiple of the correct std
    weights: tuple[float, ...] = (0.0,) * DIM

    def gradients(self, data: Any) -> np.ndarray:
        """Per-example gradients of the logistic loss at ``weights``, clipped (or not)."""
        rows = np.asarray(data, dtype=float).reshape(-1, len(self.weights) + 1)
        x, y = rows[:, :-1], rows[:, -1]
        p = 1.0 / (1.0 + np.exp(-(x @ np.asarray(self.weights))))
        g = (p - y)[:, None] * x
        if self.clip_examples:
            norms = np.linalg.norm(g, axis=1, keepdims=True)
            g = g * np.minimum(1.0, self.clip / np.maximum(norms, 1e-300))
        return g

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        total = self.gradients(data).sum(axis=0)
        sigma = self.noise_factor * self.noise_multiplier * self.clip
        return total + sigma * rng.standard_normal((size, total.size))

    @property
    def claimed_multiplier(self) -> float:
        """The noise multiplier the claim is accounted with (the one configured)."""
        return self.noise_multiplier

    @property
    def claimed_mu(self) -> float:
        return 1.0 / self.noise_multiplier


def step(data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
    """The correct step at noise multiplier 1, clip 1 (for ``dpaudit audit ...:step``)."""
    return STEPS["correct"](data, size, rng)


STEPS: dict[str, DPSGDStep] = {
    "correct": DPSGDStep(),
    "no_clip": DPSGDStep(clip_examples=False),
    "noise_per_batch": DPSGDStep(noise_factor=1.0 / math.sqrt(BATCH)),
    "half_noise": DPSGDStep(noise_factor=0.5),
}


@dataclass(frozen=True, slots=True)
class OpacusStep:
    """One Opacus ``DPOptimizer`` step on a linear logistic model (``size`` steps per call).

    ``noise_multiplier`` is what Opacus is given; ``claimed_multiplier`` what the claim was
    accounted with (they differ in the broken step)."""

    noise_multiplier: float = 1.0
    max_grad_norm: float = 1.0
    claimed_multiplier: float = 1.0

    @property
    def claimed_mu(self) -> float:
        return 1.0 / self.claimed_multiplier

    def __call__(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        import torch
        from opacus import GradSampleModule
        from opacus.optimizers import DPOptimizer

        torch.set_num_threads(1)
        rows = torch.tensor(np.asarray(data, dtype=np.float64))
        x, y = rows[:, :-1], rows[:, -1]
        gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
        model = GradSampleModule(
            torch.nn.Linear(x.shape[1], 1, bias=False, dtype=torch.float64), loss_reduction="sum"
        )
        opt = DPOptimizer(
            torch.optim.SGD(model.parameters(), lr=1.0),
            noise_multiplier=self.noise_multiplier,
            max_grad_norm=self.max_grad_norm,
            expected_batch_size=1,
            loss_reduction="sum",
            generator=gen,
        )
        loss = torch.nn.BCEWithLogitsLoss(reduction="sum")
        weight = model._module.weight
        out = np.empty((size, x.shape[1]))
        for i in range(size):
            with torch.no_grad():
                weight.zero_()
            opt.zero_grad()
            loss(model(x).squeeze(1), y).backward()
            opt.step()
            out[i] = -weight.detach().numpy()[0]
        return out


OPACUS_STEPS: dict[str, OpacusStep] = {
    "correct": OpacusStep(),
    "half_noise": OpacusStep(noise_multiplier=0.5),  # accounted at 1, run at 0.5
}


def batch(seed: int = 7, size: int = BATCH, dim: int = DIM) -> list[list[float]]:
    """A fixed batch: features on coordinates 1..dim-1 (coordinate 0 is left to the canary)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(size, dim))
    x[:, 0] = 0.0
    y = rng.integers(0, 2, size)
    return np.round(np.hstack([x, y[:, None]]), 6).tolist()


def canary_pair(dim: int = DIM) -> tuple[list, list]:
    """(D, D + canary): the canary's gradient points along coordinate 0 with norm 10."""
    base = batch(dim=dim)
    canary = [CANARY_SCALE] + [0.0] * (dim - 1) + [1.0]
    return base, [*base, canary]


def claimed_event(noise_multiplier: float = 1.0) -> Any:
    """The step's claimed privacy: dp_accounting's GaussianDpEvent of its noise multiplier."""
    import dp_accounting

    return dp_accounting.GaussianDpEvent(noise_multiplier)


def print_pairs() -> None:
    """The canary pair as a --pairs file on stdout."""
    print(json.dumps([list(canary_pair())]))
