"""Exact algebra of finite mechanisms: privacy loss, privacy profile, composition, maps.

A :class:`proofs.FiniteMechanism` is a table ``pmf[x][y] = P[M(x) = y]``. For numeric tables
these functions compute, exactly (rational arithmetic; arb balls only to decide signs of
irrational terms):

- :func:`finite_ratio`: e^epsilon = max over ordered neighbours (x, x') and outputs y of
  P[M(x)=y]/P[M(x')=y], the exact pure-DP epsilon;
- :func:`finite_delta`: delta(eps) = max over ordered neighbours of sum_y (p_y - e^eps q_y)_+,
  the exact privacy profile (Balle, Barthe, Gaboardi 2018, Thm 1);
- :func:`compose` and :func:`compose_adaptive`: sequential composition with independent
  randomness, M2 possibly depending on M1's output (notes 001; Dwork and Roth 2014, Thm 3.16);
- :func:`post_process`: x -> f(M(x)) for a deterministic or randomised map f.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import sympy as sp

from proofs import exports_of
from proofs.decide import closed_sign, known
from proofs.errors import InputError, Undecided
from proofs.expr import as_expr, rationalize
from proofs.mechanisms import FiniteMechanism
from proofs.mechanisms.tables import same_inputs
from proofs.validate import check_description

__all__ = [*exports_of(__name__)]


def rr_table(ratio) -> FiniteMechanism:
    """Binary randomized response with P[y = x] = r/(1 + r), y, x in {0, 1}: exact epsilon ln r."""
    r = rationalize(as_expr(ratio, "ratio"))
    if r.free_symbols or not known(r, "positive"):
        raise InputError(f"ratio={ratio!r} must be a positive number e^eps, e.g. 3.")
    keep = r / (1 + r)
    return FiniteMechanism({0: {0: keep, 1: 1 - keep}, 1: {0: 1 - keep, 1: keep}}, name=f"RR({r})")


def canonical_mechanism(ratio, delta=0) -> FiniteMechanism:
    """The canonical (ln r, delta)-DP mechanism on inputs 0 and 1 (Kairouz, Oh, Viswanath 2015):
    outputs 'a', 'b', 'c', 'd' with P0 = (delta, (1-delta) r/(1+r), (1-delta)/(1+r), 0) and P1
    the mirror image. Its exact privacy profile at ln r is delta; with delta = 0 it is binary
    randomized response (:func:`rr_table`) with exact epsilon ln r."""
    r, d = rationalize(as_expr(ratio, "ratio")), rationalize(as_expr(delta, "delta"))
    if d == 0:
        return rr_table(r)
    hi, lo = (1 - d) * r / (1 + r), (1 - d) / (1 + r)
    pmf = {
        0: {"a": d, "b": hi, "c": lo, "d": sp.Integer(0)},
        1: {"a": sp.Integer(0), "b": lo, "c": hi, "d": d},
    }
    return FiniteMechanism(pmf, name=f"canonical(e^eps={r}, delta={d})")


def _p(mech: FiniteMechanism, x, y) -> sp.Expr:
    value = rationalize(as_expr(mech.pmf[x][y], f"pmf[{x!r}][{y!r}]"))
    if value.free_symbols:
        raise InputError(
            f"pmf[{x!r}][{y!r}] = {value} has symbols; the exact finite-mechanism "
            "algebra needs numbers (give numeric probabilities)."
        )
    return value


def finite_ratio(mech: FiniteMechanism) -> tuple[sp.Expr, tuple | None]:
    """Exact e^epsilon of a numeric finite mechanism: max over ordered neighbour pairs (x, x')
    and outputs y of P[M(x)=y]/P[M(x')=y] (oo when some P[M(x')=y] = 0 < P[M(x)=y]), and where.
    Outputs with probability 0 under both inputs do not count."""
    check_description(mech)
    best, where = sp.Integer(1), None
    for x, xp in mech.neighbour_pairs():
        for y in mech.pmf[x]:
            p, q = _p(mech, x, y), _p(mech, xp, y)
            if not (p.is_Rational and q.is_Rational):
                raise InputError(
                    f"pmf[{x!r}][{y!r}] = {p} is not a rational number; give exact "
                    "fractions (sympy.Rational) for composition checks."
                )
            ratio = sp.oo if (q == 0 and p > 0) else (p / q if q != 0 else sp.Integer(0))
            if where is None or ratio > best:
                best, where = ratio, (x, xp, y)
    return best, where


def finite_delta(mech: FiniteMechanism, epsilon: Any) -> tuple[sp.Expr, tuple]:
    """Exact max over ordered neighbour pairs of sum_y (p_y - e^eps q_y)_+ and the worst
    (x, x', event) for numeric pmfs; e^eps is kept exact (rational when eps = ln of a rational)."""
    check_description(mech)
    factor = sp.exp(as_expr(epsilon, "epsilon"))
    best, where = sp.Integer(-1), None
    for x, xp in mech.neighbour_pairs():
        if factor.free_symbols:
            raise InputError(f"epsilon={epsilon} has symbols; give a number.")
        gaps = {y: _p(mech, x, y) - factor * _p(mech, xp, y) for y in mech.pmf[x]}
        event = [y for y, gap in gaps.items() if _positive(gap)]
        total = sum((gaps[y] for y in event), sp.Integer(0))
        if where is None or _positive(total - best):
            best, where = total, (x, xp, tuple(event))
    return best, where


def _positive(diff: sp.Expr) -> bool:
    """Is diff > 0? Exact for rationals, arb otherwise (to 16,384 bits: a group claim 10^-400
    below the truth gave gaps that close); an exact zero is not positive."""
    if diff.is_Rational:
        return diff > 0
    sign = closed_sign(diff)
    if sign is not None:
        return sign > 0
    raise Undecided(f"cannot decide the sign of {diff} (exact algebra and arb)")


def _inputs(mechs) -> list:
    same_inputs(mechs)
    return list(mechs[0].pmf)


def compose(*mechs: FiniteMechanism) -> FiniteMechanism:
    """The non-adaptive composition x -> (M1(x), ..., Mk(x)) with independent randomness."""
    if not mechs:
        raise InputError("compose() needs at least one mechanism.")
    keys = _inputs(mechs)
    pmf = {}
    for x in keys:
        rows = [m.pmf[x] for m in mechs]
        pmf[x] = {
            ys: sp.Mul(*(rationalize(as_expr(r[y], "pmf")) for r, y in zip(rows, ys)))
            for ys in itertools.product(*rows)
        }
    return FiniteMechanism(pmf, mechs[0].neighbours, name="composition")


def compose_adaptive(
    first: FiniteMechanism, second: Mapping[Any, FiniteMechanism]
) -> FiniteMechanism:
    """The adaptive composition of notes 001: x -> (y, z) with y ~ M1(x), z ~ M2(x, y).

    `second[y]` is the mechanism M2(., y) that runs once M1 returned y."""
    keys = _inputs([first, *second.values()])
    pmf = {}
    for x in keys:
        row = {}
        for y in first.pmf[x]:
            if y not in second:
                raise InputError(
                    f"second has no mechanism for M1's output {y!r}; add second[{y!r}]."
                )
            for z in second[y].pmf[x]:
                row[(y, z)] = _p(first, x, y) * _p(second[y], x, z)
        pmf[x] = row
    return FiniteMechanism(pmf, first.neighbours, name="adaptive composition")


def _kernel(f: Mapping, y) -> dict:
    if y not in f:
        raise InputError(f"post-processing map has no entry for output {y!r}; add f[{y!r}].")
    target = f[y]
    if isinstance(target, Mapping):
        row = {z: rationalize(as_expr(p, f"f[{y!r}]")) for z, p in target.items()}
        if any(known(p, "negative") for p in row.values()) or sum(row.values()) != 1:
            raise InputError(
                f"f[{y!r}] = {dict(row)} is not a probability distribution; give "
                "non-negative probabilities that sum to 1."
            )
        return row
    try:
        hash(target)
    except TypeError:
        raise InputError(
            f"f[{y!r}] = {target!r} is neither an output nor a {{output: probability}} dict; "
            "give an output value (a number, string or tuple)."
        ) from None
    return {target: sp.Integer(1)}


def post_process(mech: FiniteMechanism, f: Mapping) -> FiniteMechanism:
    """The mechanism x -> f(M(x)) for a deterministic or randomised map f on M's outputs."""
    check_description(mech)
    if not isinstance(f, Mapping):
        raise InputError(
            f"post-processing map f={f!r} must be a dict output -> output (or -> "
            "{output: probability})."
        )
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
                out[z] += rationalize(as_expr(p, "pmf")) * w
        pmf[x] = out
    return FiniteMechanism(pmf, mech.neighbours, name="post-processed")
