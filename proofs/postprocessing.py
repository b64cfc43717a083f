"""Post-processing: f(M(x)) is at least as private as M(x) (Dwork and Roth 2014, Prop. 2.1;
notes 001 a) and notes 004 Thm "Post-processing").

A :class:`PostProcessing` claim states the general theorem, with a rule: for every eps0-DP
mechanism M and every map f (deterministic y -> z, or randomised y -> {z: probability}),
f(M(x)) is rule(eps0)-DP, and its exact delta(eps) at each eps in `at` is at most M's. The
listed instances are built exactly: P[f(M(x)) = z] = sum_y P[M(x) = y] P[f(y) = z], with their
exact epsilon (max ratio, a rational number) and exact delta compared with M's. The general rule
is ``proved`` by the symbolic argument of :func:`proofs.rules.postprocessing_rule`, ``refuted``
by a listed or generated instance, and otherwise only ``checked`` on the instances.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.errors import InputError
from proofs.approx import check_eps_value, make_result
from proofs.composition import general_verdict
from proofs.decide import compare
from proofs.finite import finite_delta, finite_ratio, post_process
from proofs.results import Counterexample, ProofResult, Verdict
from proofs.rules import E0, postprocessing_rule, rule_expr

__all__ = ["post_process", "PostProcessing", "E0"]


@dataclass(frozen=True, slots=True)
class PostProcessing:
    """Claim: post-processing an eps0-DP mechanism gives a rule(eps0)-DP mechanism (`rule` an
    expression in E0, the name epsilon_0; the theorem: E0), and never increases delta(eps) at
    the epsilons in `at`. `instances` are (M, f) pairs checked exactly."""

    instances: tuple
    rule: Any = E0
    at: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "rule", rule_expr(self.rule, "rule", {"epsilon_0": E0}))
        if not isinstance(self.instances, (tuple, list)) or not all(
                isinstance(i, (tuple, list)) and len(i) == 2 for i in self.instances):
            raise InputError("instances must be a tuple of (M, f) pairs: a FiniteMechanism and "
                             "a dict output -> output (or -> {output: probability}).")
        object.__setattr__(self, "at", tuple(check_eps_value(e, "at") for e in self.at))

    def statement(self) -> str:
        return f"post-processing an eps_0-DP mechanism gives a ({self.rule})-DP mechanism"

    def check(self, *, id: str = "", source: str = "", expect: str = "holds",
              statement: str | None = None) -> ProofResult:
        start = time.perf_counter()
        meta = dict(id=id, source=source, expect=expect, statement=statement)
        steps = []
        for i, (mech, f) in enumerate(self.instances):
            cex = self._instance(i, mech, f, steps)
            if cex is not None:
                return make_result(meta, self.statement(), Verdict.REFUTED,
                                   "post-processed mechanism built, exact epsilon and delta",
                                   start, counterexample=cex, steps=tuple(steps))
        general = postprocessing_rule(self.rule)
        return general_verdict(meta, self.statement(), start, general, steps,
                               len(self.instances), "post-processing theorem")

    def _instance(self, i, mech, f, steps) -> Counterexample | None:
        post = post_process(mech, f)
        r0, _ = finite_ratio(mech)
        rp, where = finite_ratio(post)
        bound = sp.exp(self.rule.subs(E0, sp.log(r0)))
        status, how = compare(rp, bound)
        steps.append(f"instance {i}: e^eps(M) = {r0}, e^eps(f o M) = {rp} ({status})")
        if status == "violated":
            x, xp, z = where
            return Counterexample({"instance": i, "eps_0": f"ln {r0}"}, (x, xp), z,
                                  f"P[f(M(x))=z]/P[f(M(x'))=z] = {rp}", f"e^rule = {bound}", how)
        for eps in self.at:
            d0, _w = finite_delta(mech, eps)
            dp, (x, xp, event) = finite_delta(post, eps)
            st, how = compare(dp, d0)
            steps.append(f"instance {i}: delta({eps}) of M = {d0}, of f o M = {dp} ({st})")
            if st == "violated":
                return Counterexample({"instance": i, "epsilon": str(eps)}, (x, xp), set(event),
                                      f"delta of f o M = {dp}", f"delta of M = {d0}", how)
        return None
