"""Claims about composition, group privacy and post-processing: what each theorem says and the
checks of its input. The checkers (:mod:`proofs.checkers`) decide them."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from proofs.claims.base import Claim
from proofs.errors import InputError
from proofs.expr import as_expr, one_per_name, rule_expr
from proofs.mechanisms.tables import FiniteMechanism
from proofs.symbols import D1, D2, DEL, E0, E1, E2, EPS, K
from proofs.validate import MAX_COMPOSITIONS, check_delta, check_eps_value, group_size

__all__ = ["ComposedDP", "GroupPrivacy", "PostProcessing", "SequentialComposition", "short"]


def short(v) -> str:
    """A number as written, with a decimal approximation when it is long."""
    v = sp.sympify(v)
    if v.is_Rational or len(str(v)) < 24 or v.free_symbols:
        return str(v)
    return f"{v!s} (~{float(v):.6g})"


def _good_k(k: sp.Expr) -> bool:
    return bool(k.is_Integer and 1 <= k <= MAX_COMPOSITIONS)


@dataclass(frozen=True, slots=True)
class SequentialComposition(Claim):
    """Claim: composing an eps1-DP mechanism M1 with an eps2-DP mechanism M2 (which may see M1's
    output: adaptive composition) gives a rule(eps1, eps2)-DP mechanism, for *every* such pair.
    `rule` is an expression in E1, E2 (the names epsilon_1, epsilon_2); the basic theorem is
    E1 + E2 (Dwork and Roth 2014, Thm 3.16).

    With `at` = ((eps1, eps2), ...) (one pair per instance) the claim is the approximate form:
    (eps1, delta1)- and (eps2, delta2)-DP compose to (rule(eps1, eps2), delta_rule(delta1,
    delta2))-DP; `delta_rule` is an expression in D1, D2 (delta_1, delta_2; basic: D1 + D2).

    `instances` are concrete finite pairs (M1, M2), an adaptive M2 given as a dict y -> mechanism;
    each is checked exactly (its eps_i is M_i's exact epsilon, or with `at` its delta_i the exact
    profile at eps_i). The verdict is about the general rule (:mod:`proofs.rules`): ``proved``
    by the symbolic argument, ``refuted`` by a listed or generated instance, and otherwise
    ``checked``: it holds on the listed instances only, which is never counted as a proof."""

    instances: tuple
    rule: Any = E1 + E2
    at: tuple | None = None
    delta_rule: Any = D1 + D2

    def __post_init__(self):
        object.__setattr__(
            self, "rule", rule_expr(self.rule, "rule", {"epsilon_1": E1, "epsilon_2": E2})
        )
        object.__setattr__(
            self,
            "delta_rule",
            rule_expr(self.delta_rule, "delta_rule", {"delta_1": D1, "delta_2": D2}),
        )
        if not isinstance(self.instances, (tuple, list)) or not all(
            isinstance(i, (tuple, list)) and len(i) == 2 for i in self.instances
        ):
            raise InputError(
                "instances must be a tuple of (M1, M2) pairs of FiniteMechanism "
                "(M2 may be a dict: M1's output -> mechanism)."
            )
        for i, (m1, m2) in enumerate(self.instances):
            seconds = list(m2.values()) if isinstance(m2, Mapping) else [m2]
            for role, mech in [("M1", m1)] + [("M2", t) for t in seconds]:
                if not isinstance(mech, FiniteMechanism):
                    raise InputError(
                        f"instances[{i}]: {role}={reprlib.repr(mech)} is not a FiniteMechanism; "
                        "give tables (M2 may be a dict: M1's output -> FiniteMechanism)."
                    )
        if self.at is not None:
            if len(self.at) != len(self.instances) or not all(
                isinstance(a, (tuple, list)) and len(a) == 2 for a in self.at
            ):
                raise InputError(
                    f"at must give one (eps1, eps2) pair per instance "
                    f"({len(self.instances)} instances)."
                )
            object.__setattr__(
                self,
                "at",
                tuple(
                    (check_eps_value(e1, "at eps1"), check_eps_value(e2, "at eps2"))
                    for e1, e2 in self.at
                ),
            )

    def statement(self) -> str:
        kind = "adaptive " if any(isinstance(m2, Mapping) for _m1, m2 in self.instances) else ""
        if self.at is None:
            return f"{kind}composition of eps1-DP and eps2-DP mechanisms is ({self.rule})-DP"
        return f"{kind}composition is ({self.rule}, {self.delta_rule})-DP"


def _counts(e: sp.Expr) -> bool:
    """Is ``e`` a count of mechanisms for every k >= 1: a polynomial in k with integer
    coefficients, none negative beyond the constant, and at least 1 at k = 1 (so at least 1
    everywhere)? ("k/2" and "k - 1", 0 at k = 1, were accepted and proved.)"""
    try:
        poly = sp.Poly(e, K)
    except sp.PolynomialError:
        return False
    coeffs = poly.all_coeffs()
    if not all(c.is_Integer for c in coeffs):
        return False
    return all(c >= 0 for c in coeffs[:-1]) and poly.eval(1) >= 1


@dataclass(frozen=True, slots=True)
class ComposedDP(Claim):
    """Claim: every k-fold (adaptive) composition of (epsilon, delta)-DP mechanisms is
    (epsilon_total, delta_total)-DP.

    Numeric parameters are decided by the optimal composition theorem (KOV 2015, Thm 3.3, exact:
    the k-fold composition of the canonical randomized response attains it): exactly when every
    term of its sum is decided to vanish (eps_total >= k eps, where delta_total is compared with
    1 - (1 - delta)^k in rational arithmetic: ``proved``), otherwise with arb balls
    (``certified``, or ``refuted`` with the event on k-fold randomized response).

    Symbolic parameters (any of epsilon, k, delta, the totals; k a positive integer symbol) are
    ``proved`` by basic composition (Dwork and Roth 2014, Thm 3.16, by induction on k: k eps and
    k delta) when k eps <= epsilon_total and k delta <= delta_total for every value (exact
    algebra or z3), and ``refuted`` at concrete values where the exact KOV delta exceeds
    delta_total."""

    epsilon: Any
    k: Any
    epsilon_total: Any
    delta_total: Any
    delta: Any = 0

    def __post_init__(self):
        fields = ("epsilon", "k", "epsilon_total", "delta_total", "delta")
        values = one_per_name({f: as_expr(getattr(self, f), f) for f in fields})
        # a symbolic k is a positive integer, whatever assumptions its symbol carried
        ks = {s for s in values["k"].free_symbols if s.name == "k"}
        values = {f: v.xreplace(dict.fromkeys(ks, K)) for f, v in values.items()}
        if (
            values["k"].free_symbols - {K}
            or (values["k"].is_number and not _good_k(values["k"]))
            or (values["k"].free_symbols and not _counts(values["k"]))
        ):
            raise InputError(
                f"k={self.k!r} must be an integer in [1, {MAX_COMPOSITIONS}] (the number of "
                "mechanisms composed), or the symbol k (or a count in it such as 2*k or k + 1: "
                "an integer >= 1 for every k >= 1)."
            )
        for f in fields:
            if not values[f].free_symbols:
                values[f] = (
                    int(values[f])
                    if f == "k"
                    else check_delta(values[f], f)
                    if f.startswith("delta")
                    else check_eps_value(values[f], f)
                )
        for f, v in values.items():
            object.__setattr__(self, f, v)

    @property
    def symbolic(self) -> bool:
        return any(
            sp.sympify(getattr(self, f)).free_symbols
            for f in ("epsilon", "k", "epsilon_total", "delta_total", "delta")
        )

    def statement(self) -> str:
        return (
            f"{self.k}-fold composition of ({self.epsilon}, {self.delta})-DP mechanisms is "
            f"({short(self.epsilon_total)}, {self.delta_total})-DP"
        )


@dataclass(frozen=True, slots=True)
class GroupPrivacy(Claim):
    """Claim: every (eps, delta)-DP mechanism satisfies, for x, y at distance k and every S,
    P[M(x) in S] <= exp(eps_k) P[M(y) in S] + delta_k. `eps_k` is an expression in K and EPS,
    `delta_k` in K, EPS and DEL (defaults: k eps and 0, the pure statement). With `k` given the
    claim is for that group size only; otherwise for every k >= 1."""

    eps_k: Any = K * EPS
    delta_k: Any = 0
    k: int | None = None
    pure: bool = False

    def __post_init__(self):
        names = {"k": K, "epsilon": EPS, "delta": DEL}
        object.__setattr__(self, "eps_k", rule_expr(self.eps_k, "eps_k", names))
        object.__setattr__(self, "delta_k", rule_expr(self.delta_k, "delta_k", names))
        if self.k is not None:
            object.__setattr__(self, "k", group_size(self.k))

    def statement(self) -> str:
        size = f"k = {self.k}" if self.k else "every k >= 1"
        start = "eps-DP" if self.pure else "(eps, delta)-DP"
        delta_k = sp.sympify(self.delta_k).subs(DEL, 0) if self.pure else self.delta_k
        return (
            f"{start} implies P[M(x) in S] <= e^({self.eps_k}) P[M(y) in S] + "
            f"{delta_k} for x, y at distance k ({size})"
        )


@dataclass(frozen=True, slots=True)
class PostProcessing(Claim):
    """Claim: post-processing an eps0-DP mechanism gives a rule(eps0)-DP mechanism (`rule` an
    expression in E0, the name epsilon_0; the theorem: E0), and never increases delta(eps) at
    the epsilons in `at`. `instances` are (M, f) pairs checked exactly."""

    instances: tuple
    rule: Any = E0
    at: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "rule", rule_expr(self.rule, "rule", {"epsilon_0": E0}))
        if not isinstance(self.instances, (tuple, list)) or not all(
            isinstance(i, (tuple, list)) and len(i) == 2 for i in self.instances
        ):
            raise InputError(
                "instances must be a tuple of (M, f) pairs: a FiniteMechanism and "
                "a dict output -> output (or -> {output: probability})."
            )
        object.__setattr__(self, "at", tuple(check_eps_value(e, "at") for e in self.at))

    def statement(self) -> str:
        return f"post-processing an eps_0-DP mechanism gives a ({self.rule})-DP mechanism"
