"""Local protocols: one-bit telemetry (once and repeated) and RAPPOR."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.expr import as_expr
from proofs.mechanisms.base import sym
from proofs.validate import check_epsilon, check_in_range, check_positive

__all__ = ["OneBitTelemetry", "Rappor", "RepeatedOneBit"]


@dataclass(frozen=True, slots=True)
class OneBitTelemetry:
    """One-bit telemetry for values x in [0, m] (Ding, Kulkarni, Yekhanin 2017, Sec. 2.1).

    Reports 1 with probability 1/(e^eps + 1) + (x/m)(e^eps - 1)/(e^eps + 1) (`form='sum'`), an
    eps-LDP mechanism. `form='product'` is the notes' transcription (001), which multiplies the
    two terms: 1/(e^eps + 1) * (x/m) * (e^eps - 1)/(e^eps + 1); it reports 1 with probability 0
    at x = 0 and is not DP for any finite epsilon.
    """

    epsilon: Any = sym("epsilon")
    m: Any = sym("m")
    form: str = "sum"

    def __post_init__(self):
        object.__setattr__(self, "epsilon", as_expr(self.epsilon, "epsilon"))
        object.__setattr__(self, "m", as_expr(self.m, "m"))
        if self.form not in ("sum", "product"):
            raise InputError(f"form={self.form!r} is not known; use 'sum' or 'product'.")

    def domain(self):
        return (self.epsilon > 0, self.m > 0)

    def validate(self):
        check_epsilon(self.epsilon)
        check_positive(self.m, "m")

    def input_domain(self, x) -> tuple:
        """Where x is an input: 0 <= x <= m (beyond, p_one(x) need not be a probability)."""
        return tuple(c for c in (sp.sympify(x) >= 0, sp.sympify(x) <= self.m) if c is not sp.true)

    def p_one(self, x) -> sp.Expr:
        e = sp.exp(self.epsilon)
        if self.form == "sum":
            return 1 / (e + 1) + (x / self.m) * (e - 1) / (e + 1)
        return 1 / (e + 1) * (x / self.m) * (e - 1) / (e + 1)

    def pmf(self, x, y):
        p = self.p_one(x)
        return p if y == 1 else 1 - p


@dataclass(frozen=True, slots=True)
class RepeatedOneBit:
    """T reports of one client's value x in [0, m] by one-bit telemetry (Ding, Kulkarni,
    Yekhanin 2017). Without memoization each report draws a fresh bit (T-fold composition:
    T eps); with memoization the client draws the bit once per value and repeats it, so the T
    reports are a function of one eps-LDP bit (post-processing: eps for any T; Sec. 3).
    """

    epsilon: Any = sym("epsilon")
    m: Any = sym("m")
    reports: Any = sp.Symbol("T", integer=True, positive=True)
    memoized: bool = False

    def __post_init__(self):
        for name in ("epsilon", "m", "reports"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))

    def domain(self):
        return (self.epsilon > 0, self.m > 0, self.reports >= 1)

    def validate(self):
        check_epsilon(self.epsilon)
        check_positive(self.m, "m")
        check_in_range(self.reports, "reports", 1, None, lo_open=False)

    @property
    def single(self) -> OneBitTelemetry:
        return OneBitTelemetry(self.epsilon, self.m)


@dataclass(frozen=True, slots=True)
class Rappor:
    """RAPPOR's randomized responses on a Bloom filter (Erlingsson, Pihur, Korolova 2014).

    A value sets at most h of the k Bloom bits. The permanent randomized response (PRR)
    reports each bit as 1 with probability f/2, 0 with probability f/2, itself otherwise, and is
    memoized per value; each report then passes every memoized bit through the instantaneous
    randomized response (IRR): 1 with probability q if the bit is 1, p if it is 0.
    `reports='unlimited'` describes what many reports of one value reveal, the PRR itself:
    eps_inf = 2h ln((1 - f/2)/(f/2)) (Thm 1). `reports='one'` describes one report:
    eps_1 = h ln(q*(1 - p*)/(p*(1 - q*))), q* = (1 - f/2) q + (f/2) p, p* = (f/2) q + (1 - f/2) p
    (Sec. 3.2). Neighbours: any two client values.
    """

    f: Any = sym("f")
    p: Any = sym("p")
    q: Any = sym("q")
    h: Any = sp.Symbol("h", integer=True, positive=True)
    reports: str = "one"

    def __post_init__(self):
        for name in ("f", "p", "q", "h"):
            object.__setattr__(self, name, as_expr(getattr(self, name), name))
        if self.reports not in ("one", "unlimited"):
            raise InputError(f"reports={self.reports!r} is not known; use 'one' or 'unlimited'.")

    def domain(self):
        return (self.f > 0, self.f < 1, self.p > 0, self.p < self.q, self.q < 1, self.h >= 1)

    def validate(self):
        check_in_range(self.f, "f", 0, 1, fix="f is the PRR noise level")
        check_in_range(self.p, "p", 0, 1)
        check_in_range(self.q, "q", 0, 1)
        if not (self.p.free_symbols or self.q.free_symbols) and not self.p < self.q:
            raise InputError(f"p={self.p}, q={self.q}: RAPPOR needs p < q; swap them.")

    def bit_probabilities(self) -> tuple[sp.Expr, sp.Expr]:
        """(P[reported bit = 1 | Bloom bit 1], P[reported bit = 1 | Bloom bit 0])."""
        half = self.f / 2
        if self.reports == "unlimited":
            return 1 - half, half
        return (1 - half) * self.q + half * self.p, half * self.q + (1 - half) * self.p

    @property
    def epsilon(self) -> sp.Expr:
        """The exact epsilon: h times the log odds ratio of one reported bit,
        h ln(q1 (1 - q0) / (q0 (1 - q1))) with (q1, q0) = :meth:`bit_probabilities`; for
        `reports='unlimited'` this is eps_inf = 2h ln((1 - f/2)/(f/2)), for `'one'` eps_1."""
        q1, q0 = self.bit_probabilities()
        return self.h * sp.log(q1 * (1 - q0) / (q0 * (1 - q1)))
