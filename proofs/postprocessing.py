"""Post-processing: f(M(x)) is at least as private as M(x) (Dwork and Roth 2014, Prop. 2.1;
notes 001 a) and notes 004 Thm "Post-processing").

Checked on concrete finite mechanisms and post-processing maps, deterministic (y -> z) or
randomised (y -> {z: probability}): the composed mechanism
P[f(M(x)) = z] = sum_y P[M(x) = y] P[f(y) = z] is built exactly and its exact epsilon (max ratio,
a rational number) and, optionally, its exact delta at given epsilons are compared with M's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

import sympy as sp

from proofs._errors import InputError
from proofs.approx import exact, finite_delta, make_result
from proofs.composition import _compare, finite_ratio
from proofs.mechanisms import FiniteMechanism, sym
from proofs.results import Counterexample, ProofResult, Verdict

__all__ = ["post_process", "PostProcessing", "E0"]

E0 = sym("epsilon_0")


def _kernel(f: Mapping, y) -> dict:
    if y not in f:
        raise InputError(f"post-processing map has no entry for output {y!r}; add f[{y!r}].")
    target = f[y]
    if isinstance(target, Mapping):
        row = {z: exact(p, "f") for z, p in target.items()}
        if sum(row.values()) != 1:
            raise InputError(f"f[{y!r}] sums to {sum(row.values())}, not 1; fix the probabilities.")
        return row
    return {target: sp.Integer(1)}


def post_process(mech: FiniteMechanism, f: Mapping) -> FiniteMechanism:
    """The mechanism x -> f(M(x)) for a deterministic or randomised map f on M's outputs."""
    mech.validate()
    outputs = []
    for y in next(iter(mech.pmf.values())):
        for z in _kernel(f, y):
            if z not in outputs:
                outputs.append(z)
    pmf = {}
    for x, row in mech.pmf.items():
        out = {z: sp.Integer(0) for z in outputs}
        for y, p in row.items():
            for z, w in _kernel(f, y).items():
                out[z] += exact(p, "pmf") * w
        pmf[x] = out
    return FiniteMechanism(pmf, mech.neighbours, name="post-processed")


@dataclass(frozen=True, slots=True)
class PostProcessing:
    """Claim: for each (M, f) in `instances`, f(M(x)) is rule(eps_0)-DP where eps_0 is M's exact
    epsilon (`rule` an expression in E0; the theorem: E0), and, for each eps in `at`, its exact
    delta(eps) is at most M's."""

    instances: tuple
    rule: Any = E0
    at: tuple = ()

    def statement(self) -> str:
        return (f"post-processing an eps_0-DP mechanism gives a ({self.rule})-DP mechanism "
                f"(on {len(self.instances)} concrete mechanisms and maps)")

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        steps, exact = [], True
        for i, (mech, f) in enumerate(self.instances):
            post = post_process(mech, f)
            r0, _ = finite_ratio(mech)
            rp, where = finite_ratio(post)
            bound = sp.simplify(sp.exp(sp.sympify(self.rule).subs(E0, sp.log(r0))))
            status, how = _compare(rp, bound)
            steps.append(f"instance {i}: e^eps(M) = {r0}, e^eps(f o M) = {rp} ({status})")
            if status == "violated":
                x, xp, z = where
                cex = Counterexample({"instance": i, "eps_0": f"ln {r0}"}, (x, xp), z,
                                     f"P[f(M(x))=z]/P[f(M(x'))=z] = {rp}", f"e^rule = {bound}", how)
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "post-processed mechanism built, exact epsilon", start,
                                   counterexample=cex, steps=tuple(steps))
            if status == "unknown":
                return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact epsilon",
                                   start, reason=how, steps=tuple(steps))
            exact &= status == "exact"
            for eps in self.at:
                d0, _w = finite_delta(mech, eps)
                dp, (x, xp, event) = finite_delta(post, eps)
                st, how = _compare(dp, d0)
                steps.append(f"instance {i}: delta({eps}) of M = {d0}, of f o M = {dp} ({st})")
                if st == "violated":
                    cex = Counterexample({"instance": i, "epsilon": str(eps)}, (x, xp), set(event),
                                         f"delta of f o M = {dp}", f"delta of M = {d0}", how)
                    return make_result(meta, self.statement(), Verdict.REFUTED,
                                       "post-processed mechanism built, exact delta", start,
                                       counterexample=cex, steps=tuple(steps))
                if st == "unknown":
                    return make_result(meta, self.statement(), Verdict.UNKNOWN, "exact delta",
                                       start, reason=how, steps=tuple(steps))
                exact &= st == "exact"
        verdict = Verdict.PROVED if exact else Verdict.CERTIFIED
        return make_result(meta, self.statement(), verdict,
                           "post-processed mechanism built, exact epsilon and delta compared",
                           start, steps=tuple(steps),
                           reason=f"holds on all {len(self.instances)} instances")
