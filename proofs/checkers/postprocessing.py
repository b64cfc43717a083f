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

import sympy as sp

from proofs.checkers.composition import general_verdict
from proofs.checkers.rules import postprocessing_rule
from proofs.claims import PostProcessing
from proofs.decide import at, compare
from proofs.finite import finite_delta, finite_ratio, post_process
from proofs.results import Counterexample, Finding, Verdict
from proofs.symbols import E0

__all__ = ["check", "supports"]


def _check_post_processing(claim) -> Finding:
    steps = []
    for i, (mech, f) in enumerate(claim.instances):
        cex = _post_processing_instance(claim, i, mech, f, steps)
        if cex is not None:
            return Finding(
                Verdict.REFUTED,
                "post-processed mechanism built, exact epsilon and delta",
                counterexample=cex,
                steps=tuple(steps),
            )
    general = postprocessing_rule(claim.rule)
    return general_verdict(general, steps, len(claim.instances), "post-processing theorem")


def _post_processing_instance(claim, i, mech, f, steps) -> Counterexample | None:
    post = post_process(mech, f)
    r0, _ = finite_ratio(mech)
    rp, where = finite_ratio(post)
    bound = sp.exp(at(claim.rule, {E0: sp.log(r0)}))
    status, how = compare(rp, bound)
    steps.append(f"instance {i}: e^eps(M) = {r0}, e^eps(f o M) = {rp} ({status})")
    if status == "violated":
        x, xp, z = where
        return Counterexample(
            {"instance": i, "eps_0": f"ln {r0}"},
            (x, xp),
            z,
            f"P[f(M(x))=z]/P[f(M(x'))=z] = {rp}",
            f"e^rule = {bound}",
            how,
        )
    for eps in claim.at:
        d0, _w = finite_delta(mech, eps)
        dp, (x, xp, event) = finite_delta(post, eps)
        st, how = compare(dp, d0)
        steps.append(f"instance {i}: delta({eps}) of M = {d0}, of f o M = {dp} ({st})")
        if st == "violated":
            return Counterexample(
                {"instance": i, "epsilon": str(eps)},
                (x, xp),
                set(event),
                f"delta of f o M = {dp}",
                f"delta of M = {d0}",
                how,
            )
    return None


def supports(claim) -> bool:
    return isinstance(claim, PostProcessing)


def check(claim: PostProcessing) -> Finding:
    return _check_post_processing(claim)
