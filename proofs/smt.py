"""Discharge for-all inequalities over the reals with z3.

A statement `for all v in V with C(v): lhs(v) <= rhs(v)` is proved by asking z3 for a model
of `C(v) and lhs(v) > rhs(v)`. `unsat` proves the statement; a model is a candidate
counterexample that the caller must re-check exactly before it reports anything; anything
else (timeout, `unknown`, an expression z3 cannot take) is inconclusive.

Translation (sound by construction):
- `Abs`, `Max`, `Min`, `Piecewise` become `If` terms (exact case splits);
- `cosh`, `sinh`, `tanh`, `coth`, `sech`, `csch` are each written with exponentials on their
  own, so a pole's denominator stays (rewritten as a whole, coth(x) tanh(x) is 1);
- `exp(c*s)` for a symbol `s` and rational `c` becomes `X_s**k` with a fresh positive
  variable `X_s = exp(s/q)`. The link between `s` and `X_s` is relaxed to the true facts
  `X_s > 0`, `X_s >= 1 + s/q` (and `X_s > 1` when `s > 0`). A proof over the relaxation is a
  proof of the original (it quantifies over more); a model may be spurious, hence the re-check.
  A power above 256 of a symbolic term (this `X_s**k`, or `x**n`) becomes a fresh variable
  held by true facts (its sign and size against its base's; the exp facts above): z3 did not
  keep its time limit on `X**10000` beside `X**9999`;
- closed exponentials `exp(r)` with rational `r` (and `E`) become powers `U**(r/u)` of one
  variable `U` held in an arb enclosure of `exp(u)`, `u` the largest rational of which every
  such `r` is a whole multiple, so identities such as `exp(1/2)**2 = E` and
  `exp(150)**2 = exp(300)` survive the translation (separate enclosures would lose them);
  other closed transcendental constants become variables inside their own arb enclosures;
- a rational power `b**(p/q)` (sqrt among them) becomes a fresh `r >= 0` with `r**q = b**|p|`
  (its inverse for p < 0): exact once `b >= 0` (`b > 0`) is proved on the whole domain, which
  is checked first (elsewhere the root is not real and nothing is proved), within the one time
  limit; a root of degree q|p| above 64 is refused (z3 overran its limit on such powers);
- `log(b)` with a symbolic `b` becomes a fresh `l` (one per `b`) held by the true facts
  `l <= b - 1` and `l b >= b - 1`, once `b > 0` is proved on the whole domain (as a root's
  domain is): a relaxation, so identities between equal logarithms survive and models are
  re-checked;
- a quotient `a / b` is z3's division, which gives `b = 0` some value: `b != 0` is proved on
  the whole domain first, as a root's domain is, unless SymPy's assumptions show it (the
  terms of a claim undefined at a point, 1/x <= 1/x + 1 at x = 0, are never proved);
  :func:`defined_on` asks the same of any expressions;
- integer-valued symbols are quantified over the reals (a superset: proofs stay sound), a
  positive one from 1 and a negative one up to -1 (true bounds that the reals would lose: a
  dimension k >= 1 makes Delta/b <= k Delta/b hold);
- distinct SymPy symbols that share a name get distinct z3 variables (merging them would
  prove a special case only).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
import z3
from sympy.functions.elementary.hyperbolic import HyperbolicFunction

from proofs.expr import float_value

__all__ = ["ForAllResult", "Translator", "Unsupported", "defined_on", "prove_forall"]


_MAX_UNIT_POWER = 64  # beyond this, exp(r) gets its own enclosure (degree stays small)
# a symbolic term's power above this is an atom of its own, held by true facts: z3 ignored its
# time limit (and, inside its C code, SIGTERM) on x**10000 beside x**2 and on exp(eps) written
# as X**10000 beside X**9999 (a claim 0.9999*epsilon); it kept its limit up to X**400
_MAX_SYMBOLIC_POWER = 256


class Unsupported(Exception):
    """The expression uses something the z3 translation does not cover."""


@dataclass(frozen=True, slots=True)
class ForAllResult:
    """Outcome of one for-all check: status is 'proved', 'model' or 'unknown'."""

    status: str
    model: dict | None = None
    reason: str = ""


class Translator:
    """SymPy -> z3 terms (see the module docstring); `side` collects the facts the
    translation adds (signs, exponential bounds, constant enclosures)."""

    def __init__(self, integers: bool = False) -> None:
        self.integers = integers  # integer symbols as z3 integers (else over the reals)
        self.vars: dict[sp.Symbol, z3.ArithRef] = {}
        self.names: set[str] = set()  # the z3 names of vars
        self.exp_vars: dict[sp.Symbol, tuple[z3.ArithRef, int]] = {}
        self.side: list[z3.BoolRef] = []
        self.exp_denominators: dict[sp.Symbol, int] = {}
        self.unit_exponent = sp.Integer(0)  # u: closed exp(r) is written as exp(u)**(r/u)
        self.unit: z3.ArithRef | None = None
        self.roots: list[z3.BoolRef] = []  # r >= 0 and r**q = b**|p| for each b**(p/q)
        # b >= 0 (b > 0) for each root, b > 0 for each logarithm, b != 0 for each quotient:
        # where the terms are defined, proved of the whole domain before a proof is trusted
        self.domains: list[z3.BoolRef] = []
        self.logs: dict[sp.Expr, z3.ArithRef] = {}  # log(b), one variable per argument b
        self.constants: dict[sp.Expr, z3.ArithRef] = {}  # enclosed closed constants
        self.log_facts: list[z3.BoolRef] = []  # b > 0 implies l <= b - 1 and l b >= b - 1
        # powers beyond _MAX_SYMBOLIC_POWER, keyed by kind: x**300 and exp(300 x) have equal
        # (base, degree) and (symbol, coefficient) keys, and one variable proved e^300 <= 1
        self.atoms: dict[tuple, z3.ArithRef] = {}

    def fresh(self, name: str) -> str:
        """A z3 name no other variable of this translation has: ``name``, else ``name#2``,
        ... A symbol's name may be anything (``exp(epsilon/2)``, ``c!0``); "!" is z3's mark of
        its fresh constants (FreshReal("c") is the constant named c!0), so it is replaced."""
        base = name.replace("!", "¡")
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}#{n}"
        self.names.add(name)
        return name

    def var(self, s: sp.Symbol) -> z3.ArithRef:
        if s not in self.vars:
            # distinct SymPy symbols may share a name (other assumptions): never merge them
            # (by the z3 names given, not by the terms: an integer's term reads ToReal(k))
            name = self.fresh(str(s))
            # an integer symbol stays real-sorted in the terms (1/k is never integer division)
            v = z3.ToReal(z3.Int(name)) if self.integers and s.is_integer else z3.Real(name)
            self.vars[s] = v
            if s.is_positive:
                self.side.append(v >= 1 if s.is_integer else v > 0)
            elif s.is_nonnegative:
                self.side.append(v >= 0)
            if s.is_negative:
                self.side.append(v <= -1 if s.is_integer else v < 0)
        return self.vars[s]

    def plan_exponentials(self, exprs) -> None:
        """Find exp(c*s) terms and choose q so that every c*q is an integer; for the closed
        exponentials exp(r), r rational (E among them), the unit u, the largest rational of
        which every r is a whole multiple (exp(150) and exp(300) are exp(150)**1 and **2)."""
        exprs = [sp.sympify(e) for e in exprs]
        # each hyperbolic function is translated as its own rewrite (see term): plan those
        exprs += [h.rewrite(sp.exp) for e in exprs for h in e.atoms(HyperbolicFunction)]
        for e in exprs:
            for node in sp.preorder_traversal(e):
                if node is sp.E or (node.is_Pow and node.base is sp.E):  # E, E**r unevaluated
                    r = _power_of_e(node)
                    if r.is_Rational:
                        self.unit_exponent = sp.gcd(self.unit_exponent, r)
                    continue
                if isinstance(node, sp.exp):
                    for term in sp.Add.make_args(sp.expand(node.args[0])):
                        if not term.free_symbols:
                            if term.is_Rational:
                                self.unit_exponent = sp.gcd(self.unit_exponent, term)
                            continue
                        sym, coeff = self._exp_parts(term)
                        q = self.exp_denominators.get(sym, 1)
                        self.exp_denominators[sym] = q * coeff.q // math.gcd(q, coeff.q)

    @staticmethod
    def _exp_parts(arg: sp.Expr) -> tuple[sp.Symbol, sp.Rational]:
        coeff, rest = arg.as_coeff_Mul()
        if isinstance(rest, sp.Symbol) and coeff.is_Rational:
            return rest, sp.Rational(coeff)
        raise Unsupported(f"exp({arg}) is not exp(rational * symbol)")

    def exp_var(self, sym: sp.Symbol) -> tuple[z3.ArithRef, int]:
        if sym not in self.exp_vars:
            q = self.exp_denominators.get(sym, 1)
            x = z3.Real(self.fresh(f"exp({self.var(sym)}/{q})"))
            s = self.var(sym)
            self.side += [x > 0, x >= 1 + s / q]
            if sym.is_positive:
                self.side.append(x > 1)
            # exp(u) <= 1/(1 - u) for u < 1: keeps the sign of s tied to X_s >= 1 or < 1.
            self.side.append(z3.Implies(s / q < 1, x * (1 - s / q) <= 1))
            self.exp_vars[sym] = (x, q)
        return self.exp_vars[sym]

    def constant(self, e: sp.Expr) -> z3.ArithRef:
        """A closed transcendental constant: a power of the shared unit exp(u) when it is
        exp(rational) and the power is small, else a fresh variable inside its arb enclosure
        (also when the unit has none z3 can take: exp(-10000) is enclosed near 0, its unit
        exp(10000) beyond a double)."""
        r = _power_of_e(e)
        u = self.unit_exponent
        if r is not None and r.is_Rational and u != 0:
            k = r / u
            if k.is_Integer and abs(int(k)) <= _MAX_UNIT_POWER:
                if self.unit is None:
                    try:
                        self.unit = self._enclosed(sp.exp(u))
                    except Unsupported:
                        self.unit_exponent = sp.Integer(0)  # (no unit: each its own)
                        return self._enclosed(e)
                k = int(k)
                return self.unit**k if k >= 0 else 1 / self.unit ** (-k)
        return self._enclosed(e)

    def _enclosed(self, e: sp.Expr) -> z3.ArithRef:
        """A closed constant as a variable inside its arb enclosure: one per constant (two
        occurrences of sqrt(2) taken apart could differ, and sqrt(2) x <= sqrt(2) x failed)."""
        if e not in self.constants:
            self.constants[e] = self._enclose(e)
        return self.constants[e]

    def _enclose(self, e: sp.Expr) -> z3.ArithRef:
        from proofs.numeric import NotNumeric, to_ball

        try:
            ball = to_ball(e)
        except (NotNumeric, ZeroDivisionError, ValueError) as exc:
            raise Unsupported(f"constant {e}") from exc
        if not ball.is_finite():
            raise Unsupported(f"constant {e} has no finite enclosure")
        try:
            lo, hi = _endpoint(ball.lower(), -math.inf), _endpoint(ball.upper(), math.inf)
        except (ValueError, OverflowError) as exc:
            raise Unsupported(f"constant {e}: no enclosure z3 can take") from exc
        c = z3.FreshReal("c")
        self.side += [
            c >= z3.RealVal(f"{lo.numerator}/{lo.denominator}"),
            c <= z3.RealVal(f"{hi.numerator}/{hi.denominator}"),
        ]
        return c

    def term(self, e: sp.Expr) -> z3.ArithRef:
        if isinstance(e, HyperbolicFunction):
            # cosh, sinh, tanh, ... as exponentials, each on its own: rewritten as a whole,
            # coth(x) tanh(x) is 1 and its pole at 0 (the denominator e^x - e^-x) is lost
            return self.term(e.rewrite(sp.exp))
        if isinstance(e, sp.log) and e.args[0].is_Rational:
            # over its factors, in place (a whole expression rebuilt that way lets SymPy
            # cancel log(4)/x - 2 log(2)/x to 0, and the quotient's x != 0 with it)
            factored = _factored_log(e)
            if factored != e:
                return self.term(factored)
        if not e.free_symbols and not e.is_Rational and not e.is_Float:
            if e is sp.E or isinstance(e, sp.exp):
                return self.constant(e)
            # sums, products and integer powers of constants stay structural, so that the
            # constants inside them share the unit; anything else is enclosed as a whole
            if not (e.is_Add or e.is_Mul or (e.is_Pow and e.exp.is_Integer)):
                return self._enclosed(e)
        if e.is_Rational:
            return z3.RealVal(f"{e.p}/{e.q}")
        if e.is_Float:
            f = float_value(e)
            return z3.RealVal(f"{f.p}/{f.q}")
        if isinstance(e, sp.Symbol):
            return self.var(e)
        if e.is_Add:
            return z3.Sum([self.term(a) for a in e.args])
        if e.is_Mul:
            return z3.Product([self.term(a) for a in e.args])
        if e.is_Pow:
            return self._pow(e)
        if isinstance(e, sp.Abs):
            t = self.term(e.args[0])
            return z3.If(t >= 0, t, -t)
        if isinstance(e, (sp.Max, sp.Min)):
            return self._extreme(e)
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, sp.log):
            return self._log(e)
        if isinstance(e, sp.exp):
            # exp(c1 s1 + c2 s2 + k) = exp(c1 s1) exp(c2 s2) exp(k)
            factors = []
            for part in sp.Add.make_args(sp.expand(e.args[0])):
                if not part.free_symbols:
                    factors.append(self.constant(sp.exp(part)))
                    continue
                sym, coeff = self._exp_parts(part)
                x, q = self.exp_var(sym)
                if not (coeff * q).is_Integer:  # (an exponential plan_exponentials missed)
                    raise Unsupported(f"exp({part}) was not planned")
                k = int(coeff * q)
                if abs(k) > _MAX_SYMBOLIC_POWER:
                    factors.append(self._exp_atom(sym, coeff))
                    continue
                factors.append(x**k if k >= 0 else 1 / x ** (-k))
            return z3.Product(factors) if len(factors) > 1 else factors[0]
        raise Unsupported(f"{type(e).__name__} in {e}")

    def _pow(self, e: sp.Pow) -> z3.ArithRef:
        if e.exp.is_Rational and not e.exp.is_Integer:
            return self._root(e)
        if not e.exp.is_Integer:
            raise Unsupported(f"non-integer power {e}")
        n = int(e.exp)
        base = self.term(e.base)
        if n == 0:
            return z3.RealVal(1)
        if n < 0:
            from proofs.decide import known  # (decide uses this module)

            if not known(e.base, "nonzero"):
                # z3 gives b/0 some value: a quotient is defined where its denominator is not 0
                self.domains.append(base != 0)
        if abs(n) > _MAX_SYMBOLIC_POWER and e.base.free_symbols:
            atom = self._power_atom(e.base, base, abs(n))
            return atom if n > 0 else 1 / atom
        return base**n if n > 0 else 1 / base ** (-n)

    def _power_atom(self, key: sp.Expr, b: z3.ArithRef, n: int) -> z3.ArithRef:
        """b**n, n > _MAX_SYMBOLIC_POWER, as a fresh t (one per base and degree, so equal
        powers still cancel) held by facts true of every n >= 2: t has b's sign (t >= 0 for
        even n), |t| >= |b| where |b| >= 1 and |t| <= |b| where |b| <= 1. A relaxation, as
        for exp: proofs hold, models are re-checked."""
        if ("power", key, n) not in self.atoms:
            t = z3.FreshReal("power")
            a, m = z3.If(b >= 0, b, -b), z3.If(t >= 0, t, -t)
            sign = (
                t >= 0
                if n % 2 == 0
                else z3.And(z3.Implies(b >= 0, t >= 0), z3.Implies(b <= 0, t <= 0))
            )
            self.side += [
                sign,
                z3.Implies(b != 0, t != 0),
                z3.Implies(a >= 1, m >= a),
                z3.Implies(a <= 1, m <= a),
            ]
            self.atoms[("power", key, n)] = t
        return self.atoms[("power", key, n)]

    def _exp_atom(self, sym: sp.Symbol, coeff: sp.Rational) -> z3.ArithRef:
        """exp(coeff * sym) as a fresh y (one per coefficient) held by the facts its
        :meth:`exp_var` has, at u = coeff * sym: y > 0, y >= 1 + u, y (1 - u) <= 1 for u < 1."""
        if ("exp", sym, coeff) not in self.atoms:
            y, u = z3.FreshReal("exp"), z3.RealVal(f"{coeff.p}/{coeff.q}") * self.var(sym)
            self.side += [y > 0, y >= 1 + u, z3.Implies(u < 1, y * (1 - u) <= 1)]
            self.atoms[("exp", sym, coeff)] = y
        return self.atoms[("exp", sym, coeff)]

    def _root(self, e: sp.Pow) -> z3.ArithRef:
        """b**(p/q) as a fresh r >= 0 with r**q = b**|p| (1/r for p < 0): exact where b >= 0
        (b > 0 for p < 0), which :func:`prove_forall` proves of the whole domain before it
        trusts a proof (elsewhere SymPy's root is not real). A base with a root inside it is
        not taken: its domain could not be checked without the inner root's definition."""
        if any(
            isinstance(a, sp.Pow) and not a.exp.is_Integer for a in sp.preorder_traversal(e.base)
        ):
            raise Unsupported(f"nested root {e}")
        p, q = int(e.exp.p), int(e.exp.q)
        if q * abs(p) > _MAX_UNIT_POWER:  # (z3 overran its time limit fourfold on a^(1/1000))
            raise Unsupported(f"root of degree {q * abs(p)} in {e}")
        base = self.term(e.base)
        r = z3.FreshReal("root")
        self.roots.append(z3.And(r >= 0, r**q == base ** abs(p)))
        self.domains.append(base > 0 if p < 0 else base >= 0)
        return r if p > 0 else 1 / r

    def _log(self, e: sp.log) -> z3.ArithRef:
        """log(b) as one fresh l per argument b, held by the true facts l <= b - 1 and
        l b >= b - 1 where b > 0 (a relaxation, as for exp: proofs hold, models are
        re-checked); :func:`prove_forall` proves b > 0 of the whole domain first (with those
        facts: a root of a logarithm needs its sign). An argument with a
        root or a logarithm inside is not taken (its domain would be checked without them)."""
        (arg,) = e.args
        if any(
            isinstance(a, sp.log) or (isinstance(a, sp.Pow) and not a.exp.is_Integer)
            for a in sp.preorder_traversal(arg)
        ):
            raise Unsupported(f"nested root or logarithm {e}")
        b = self.term(arg)
        self.domains.append(b > 0)  # (at every occurrence: one may sit in a Piecewise branch)
        if arg not in self.logs:
            l = z3.FreshReal("log")
            self.log_facts.append(z3.Implies(b > 0, z3.And(l <= b - 1, l * b >= b - 1)))
            self.logs[arg] = l
        return self.logs[arg]

    def _extreme(self, e) -> z3.ArithRef:
        terms = [self.term(a) for a in e.args]
        acc = terms[0]
        for t in terms[1:]:
            acc = z3.If(t > acc, t, acc) if isinstance(e, sp.Max) else z3.If(t < acc, t, acc)
        return acc

    def _piecewise(self, e: sp.Piecewise) -> z3.ArithRef:
        """Nested If terms. A branch need only be defined where it is taken: 1/x for x > 0,
        else 0, is defined at 0 (the domains its terms add are required under its guard)."""
        *pairs, (last_value, last_cond) = e.args
        if last_cond is not sp.true:
            raise Unsupported("Piecewise without an otherwise branch")
        conds = [self.boolean(c) for _v, c in pairs]
        values = []
        for i, value in enumerate([*(v for v, _c in pairs), last_value]):
            before, roots = len(self.domains), len(self.roots)
            values.append(self.term(value))
            taken = z3.And(*(z3.Not(c) for c in conds[:i]), *conds[i : i + 1])
            self.domains[before:] = [z3.Implies(taken, d) for d in self.domains[before:]]
            # a root's definition too: r^2 = b has no solution where b < 0, and held
            # everywhere it would take those points out of the search
            self.roots[roots:] = [z3.Implies(taken, d) for d in self.roots[roots:]]
        acc = values[-1]
        for cond, value in zip(reversed(conds), reversed(values[:-1])):
            acc = z3.If(cond, value, acc)
        return acc

    def constraints(self, constraints) -> list[z3.BoolRef]:
        """The constraints, a conjunction. A relation among them (or inside an And of them)
        holds only where it is defined: its roots, logarithms and denominators are added to
        the constraints, not to :attr:`domains` (z3 gives 1/0 a value, so x = 0 met 1/x > 1,
        and no claim over it could be shown defined). Inside Or or Not they stay required:
        added beside Or(x < 0, log(x) > 0) as x > 0 they took every x < 0 out of the domain,
        and 1 <= x was proved over it."""
        out = []
        for c in constraints:
            for part in sp.And.make_args(c) if isinstance(c, sp.And) else (c,):
                before = len(self.domains)
                out.append(self.boolean(part))
                if isinstance(part, sp.core.relational.Relational):
                    out += self.domains[before:]
                    del self.domains[before:]
        return out

    def boolean(self, c) -> z3.BoolRef:
        if c is sp.true:
            return z3.BoolVal(True)
        if c is sp.false:
            return z3.BoolVal(False)
        if isinstance(c, sp.And):
            return z3.And([self.boolean(a) for a in c.args])
        if isinstance(c, sp.Or):
            return z3.Or([self.boolean(a) for a in c.args])
        if isinstance(c, sp.Not):
            return z3.Not(self.boolean(c.args[0]))
        ops = {
            sp.StrictLessThan: lambda a, b: a < b,
            sp.LessThan: lambda a, b: a <= b,
            sp.StrictGreaterThan: lambda a, b: a > b,
            sp.GreaterThan: lambda a, b: a >= b,
            sp.Equality: lambda a, b: a == b,
            sp.Unequality: lambda a, b: a != b,
        }
        for kind, op in ops.items():
            if isinstance(c, kind):
                return op(self.term(c.lhs), self.term(c.rhs))
        raise Unsupported(f"condition {c}")


# an enclosure's endpoint is exact up to this many bits (exp(r) for |r| up to about 2,700):
# beyond, its digits pass what Python converts to text (4,300), and z3 takes numbers as text
_EXACT_BITS = 4000


def _endpoint(bound, outward: float) -> Fraction:
    """An arb endpoint (exact: mantissa times a power of two) as a fraction: exactly (exp(710)
    overflows a double), or, when that is too long, the next double beyond it (``outward``:
    -inf below, +inf above). OverflowError when no double is beyond it."""
    man, exp = (int(v) for v in bound.man_exp())
    if man.bit_length() + abs(exp) <= _EXACT_BITS:
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    f = math.nextafter(float(bound), outward)
    if not math.isfinite(f):
        raise OverflowError(f"{bound} is beyond a double's range")
    return Fraction(f)


def _power_of_e(e: sp.Expr) -> sp.Expr | None:
    """r when ``e`` is E**r: E, exp(r) or an unevaluated Pow(E, r) (which SymPy also counts as
    an instance of exp, with E as its first argument); else None."""
    if e is sp.E:
        return sp.Integer(1)
    if e.is_Pow and e.base is sp.E:
        return e.exp
    return e.args[0] if isinstance(e, sp.exp) else None


def _model_value(v: z3.ArithRef, model: z3.ModelRef) -> sp.Rational | None:
    """A model's value as a rational; None when it has none (or one too long for Python to
    read: more than 4,300 digits)."""
    val = model.eval(v, model_completion=True)
    try:
        if z3.is_rational_value(val):
            return sp.Rational(val.numerator_as_long(), val.denominator_as_long())
        if z3.is_algebraic_value(val):
            approx = val.approx(30)
            return sp.Rational(approx.numerator_as_long(), approx.denominator_as_long())
    except ValueError:
        return None
    return None


def prove_forall(
    lhs: sp.Expr,
    rhs: sp.Expr,
    constraints=(),
    *,
    strict: bool = False,
    timeout_ms: int = 10_000,
    integers: bool = False,
) -> ForAllResult:
    """Try to prove `lhs <= rhs` (or `lhs < rhs` when strict) wherever `constraints` hold.

    Free symbols carry their SymPy assumptions (positive, nonnegative) as constraints; with
    ``integers``, integer symbols range over z3's integers (exact, but nonlinear integer
    arithmetic is undecidable: for small questions such as whether a domain is empty).
    Returns status 'proved', 'model' (a candidate counterexample: symbol -> Rational, to be
    re-checked by the caller) or 'unknown' with the reason.
    """
    tr = Translator(integers)
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    constraints = [sp.sympify(c) for c in constraints]
    try:
        tr.plan_exponentials([lhs, rhs, *constraints])
        goal_violated = tr.term(rhs) <= tr.term(lhs) if strict else tr.term(lhs) > tr.term(rhs)
        cons = tr.constraints(constraints)
    except Unsupported as exc:
        return ForAllResult("unknown", reason=f"outside the SMT fragment: {exc}")
    if tr.domains:
        # every term defined on the whole domain (within the one time limit: what this check
        # spends, the proof has less of)
        start = time.monotonic()
        answer, _ = _domains_hold(tr, cons, timeout_ms)
        timeout_ms = max(1, timeout_ms - int(1000 * (time.monotonic() - start)))
        if answer != z3.unsat:
            return ForAllResult("unknown", reason=f"outside the SMT fragment: {_UNDEFINED}")
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*tr.side, *tr.roots, *tr.log_facts, *cons, goal_violated)
    answer = solver.check()
    if answer == z3.unsat:
        return ForAllResult("proved")
    if answer == z3.sat:
        model = solver.model()
        values = {s: _model_value(v, model) for s, v in tr.vars.items()}
        exp_values = {sym: _model_value(x, model) for sym, (x, _q) in tr.exp_vars.items()}
        return ForAllResult(
            "model",
            model={
                "symbols": values,
                "exp": exp_values,
                "q": {sym: q for sym, (_x, q) in tr.exp_vars.items()},
            },
        )
    return ForAllResult("unknown", reason=f"z3 returned unknown ({solver.reason_unknown()})")


_UNDEFINED = (
    "a root's or a logarithm's argument, or a denominator, not shown to be in its domain "
    "(>= 0, > 0, != 0) on the whole domain"
)


def _domains_hold(tr: Translator, cons: list, timeout_ms: int):
    """Ask z3 for a point of the domain where some term of the translation is undefined,
    without the roots' own definitions (a root's domain is checked before its value is
    known): (unsat, None) shows every term defined; (sat, model) or (unknown, None) do not."""
    solver = z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*tr.side, *tr.log_facts, *cons, z3.Not(z3.And(tr.domains)))
    answer = solver.check()
    return answer, (solver.model() if answer == z3.sat else None)


def defined_on(exprs, constraints=(), *, timeout_ms: int = 10_000) -> ForAllResult:
    """Is every expression defined (real) wherever ``constraints`` hold: each root's and
    logarithm's argument in its domain and each denominator nonzero? 'proved'; 'model' with
    a candidate point where some term is undefined (to be re-checked by the caller: the
    translation relaxes exp and log); or 'unknown' (also when a term is outside the SMT
    fragment: tan x, gamma x)."""
    tr = Translator()
    exprs, constraints = [sp.sympify(e) for e in exprs], [sp.sympify(c) for c in constraints]
    try:
        tr.plan_exponentials([*exprs, *constraints])
        for e in exprs:
            tr.term(e)
        cons = tr.constraints(constraints)
    except Unsupported as exc:
        return ForAllResult("unknown", reason=f"outside the SMT fragment: {exc}")
    if not tr.domains:
        return ForAllResult("proved")
    answer, model = _domains_hold(tr, cons, timeout_ms)
    if answer == z3.unsat:
        return ForAllResult("proved")
    if answer == z3.sat:
        values = {s: _model_value(v, model) for s, v in tr.vars.items()}
        return ForAllResult("model", model={"symbols": values}, reason=_UNDEFINED)
    return ForAllResult("unknown", reason=_UNDEFINED)


@functools.lru_cache(maxsize=1024)  # (trial division again at every occurrence, every call)
def _factored_log(node: sp.log) -> sp.Expr:
    """log(r), r a positive rational, as sum k_f log(f) over r's factors (those below 2^16
    found by trial division, the rest as one factor): each closed constant gets an enclosure
    of its own, so log(8) and 3 log(2) were two constants z3 could not show equal (a
    geometric mechanism with scale 1/log 2 and sensitivity 3 was not proved at log 8)."""
    r = node.args[0]
    if not r > 0 or max(int(r.p).bit_length(), int(r.q).bit_length()) > _FACTORED_BITS:
        return node
    powers: dict[int, int] = {}
    try:
        for n, sign in ((int(r.p), 1), (int(r.q), -1)):
            if n > 1:
                for f, k in sp.factorint(n, limit=2**16, **_TRIAL_ONLY).items():
                    powers[int(f)] = powers.get(int(f), 0) + sign * int(k)
    except (OverflowError, ValueError):  # (its perfect-power test took floats of huge powers)
        return node
    if len(powers) == 1 and abs(next(iter(powers.values()))) == 1:
        return node
    return sp.Add(*(k * sp.log(sp.Integer(f)) for f, k in sorted(powers.items())))


_FACTORED_BITS = 256  # a longer numerator or denominator keeps its log whole


# trial division only: the other methods took half a second on a 100-digit number
_TRIAL_ONLY = {"use_trial": True, "use_rho": False, "use_pm1": False, "use_ecm": False}
