"""Safe reading of user text and numbers into SymPy expressions: nothing is ever evaluated.

``sympy.sympify`` (and everything that calls it on a string: ``nsimplify``, ``S``, ...) runs
Python's ``eval`` on the text, so a claim built from JSON or a form could run arbitrary code.
Text here goes through a tokenizer and a small recursive-descent parser of our own that builds
SymPy objects directly. The grammar is

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("+" | "-") unary | power
    power  := atom (("^" | "**") unary)?                       (right associative)
    atom   := NUMBER | NAME | FUNC "(" expr ("," expr)* ")" | "(" expr ")"

with decimal numbers (``0.25``, ``1e-5``: read as exact rationals), the constants ``pi`` and
``E``, the functions in :data:`FUNCTIONS`, and parameter names (letters, digits and ``_``,
starting with a letter). Anything else (attribute access, subscripts, strings, lambdas,
comprehensions, keywords, dunder names, unknown functions) is an :class:`InputError` naming the
field, the value and what is allowed. Length, nesting depth and the size of numeric powers are
bounded, so no input can exhaust memory or time.

Names become positive real symbols (the convention of :func:`proofs.mechanisms.sym`), except
those in :data:`KNOWN_SYMBOLS`, which carry the assumptions the proofs use for them (``k`` and
``n`` are positive integers, ``n_1`` a non-negative integer, ...).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from typing import Any

import sympy as sp

from proofs.errors import InputError

__all__ = [
    "FUNCTIONS",
    "KNOWN_SYMBOLS",
    "MAX_LENGTH",
    "as_expr",
    "by_name",
    "float_value",
    "one_per_name",
    "parse",
    "rationalize",
    "reserve",
    "rule_expr",
    "symbols_of",
    "to_fraction",
]

MAX_LENGTH = 400
_MAX_DEPTH = 40
_MAX_DIGITS = 60
_MAX_POWER = 4096

FUNCTIONS = {
    "exp": sp.exp,
    "log": sp.log,
    "ln": sp.log,
    "sqrt": sp.sqrt,
    "abs": sp.Abs,
    "Abs": sp.Abs,
    "max": sp.Max,
    "Max": sp.Max,
    "min": sp.Min,
    "Min": sp.Min,
    "erf": sp.erf,
    "erfc": sp.erfc,
}
_ARITY = {"max": None, "Max": None, "min": None, "Min": None}
_CONSTANTS = {"pi": sp.pi, "E": sp.E}
_NOT_NUMBERS = {"inf", "infinity", "nan", "oo", "zoo"}

KNOWN_SYMBOLS: dict[str, sp.Symbol] = {
    "k": sp.Symbol("k", integer=True, positive=True),
    "n": sp.Symbol("n", integer=True, positive=True),
    "n_1": sp.Symbol("n_1", integer=True, nonnegative=True),
    "h": sp.Symbol("h", integer=True, positive=True),
    "T": sp.Symbol("T", integer=True, positive=True),
    "delta_1": sp.Symbol("delta_1", nonnegative=True),
    "delta_2": sp.Symbol("delta_2", nonnegative=True),
}

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*|[-+*/^(),]))"
)
_ALLOWED = "numbers, + - * / ^ **, parentheses, parameter names, pi, E and " + ", ".join(
    sorted({f for f in FUNCTIONS if f.islower()})
)


class _Parser:
    def __init__(self, text: str, field: str, symbols: Mapping[str, sp.Symbol]):
        self.field, self.text, self.symbols = field, text, symbols
        self.tokens = self._tokenize(text)
        self.pos = 0
        self.depth = 0
        # each quotient, root, logarithm and power written, as written: SymPy folds
        # (x - 1)/(x - 1) to 1 and sqrt(x)^2 to x while building, and with them where the
        # text is undefined (:func:`parse`'s `guards`)
        self.guards: list[sp.Expr] = []

    def guard(self, term: sp.Expr, what: str) -> None:
        """Keep `term` (a quotient, root, logarithm or power just written) as a guard; a
        number that is not a finite real (sqrt(-1), log(0)) is refused here, though it may
        cancel later (sqrt(-1) sqrt(-1) is -1)."""
        if term.free_symbols:
            self.guards.append(term)
        elif not _enclosed(term):
            raise self.fail(f"{what} is {term}, not a real number (none arb can show)")

    def fail(self, why: str) -> InputError:
        shown = self.text if len(self.text) <= 80 else self.text[:77] + "..."
        return InputError(
            f"{self.field}={shown!r} is not a formula dpaudit reads: {why}; use {_ALLOWED}."
        )

    def _tokenize(self, text: str) -> list[tuple[str, str]]:
        tokens, i = [], 0
        while i < len(text):
            if text[i:].strip() == "":
                break
            m = _TOKEN.match(text, i)
            if m is None or m.end() == i:
                raise self.fail(f"unexpected {text[i:].lstrip()[:12]!r}")
            kind = m.lastgroup
            tokens.append((kind, m.group(kind)))
            i = m.end()
        return tokens

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise self.fail("it ends too early")
        if value is not None and tok[1] != value:
            raise self.fail(f"expected {value!r}, found {tok[1]!r}")
        self.pos += 1
        return tok

    def parse(self) -> sp.Expr:
        if not self.tokens:
            raise self.fail("it is empty")
        value = self.expr()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()[1]!r}")
        return value

    def expr(self) -> sp.Expr:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.fail("it is nested too deeply")
        value = self.term()
        while self.peek() and self.peek()[1] in "+-":
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        self.depth -= 1
        return value

    def term(self) -> sp.Expr:
        value = self.unary()
        while self.peek() and self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            right = self.unary()
            if op == "/" and right == 0:
                raise self.fail("it divides by zero")
            if op == "/":
                self.guard(1 / right, f"1/({right})")
            value = value * right if op == "*" else value / right
        return value

    def unary(self) -> sp.Expr:
        tok = self.peek()
        if tok and tok[1] in "+-":
            self.take()
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise self.fail("it is nested too deeply")
            value = self.unary()
            self.depth -= 1
            return -value if tok[1] == "-" else value
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if self.peek() and self.peek()[1] in ("^", "**"):
            self.take()
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise self.fail("it is nested too deeply")
            exponent = self.unary()
            self.depth -= 1
            self.check_size(base, exponent)
            value = base**exponent
            if not (exponent.is_integer and exponent.is_nonnegative):
                self.guard(value, f"({base})^({exponent})")
            if exponent.is_Rational and not exponent.is_integer:
                self.root_folded(value, base, exponent)
            return value
        return base

    def check_size(self, base: sp.Expr, exponent: sp.Expr) -> None:
        """Refuse numeric powers whose exact value would be huge (SymPy computes them eagerly)."""
        if not (base.is_Rational and exponent.is_Rational) or base in (0, 1, -1):
            return
        digits = len(str(abs(base.p))) + len(str(base.q))
        if abs(exponent) > _MAX_POWER or abs(exponent) * digits > 20 * _MAX_POWER:
            raise self.fail(f"the power {base}^{exponent} is too large")

    def atom(self) -> sp.Expr:
        kind, value = self.take()
        if kind == "num":
            return self.number(value)
        if kind == "name":
            if self.peek() and self.peek()[1] == "(":
                return self.call(value)
            return self.name(value)
        if value == "(":
            inner = self.expr()
            self.take(")")
            return inner
        raise self.fail(f"unexpected {value!r}")

    def number(self, text: str) -> sp.Expr:
        if len(text) > _MAX_DIGITS:
            raise self.fail("a number has too many digits")
        value = Fraction(text)
        return sp.Rational(value.numerator, value.denominator)

    def name(self, name: str) -> sp.Expr:
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name.lower() in _NOT_NUMBERS:
            # (read as a parameter name, "inf" made PureDP(Laplace(1, 1), "inf") a for-all
            # claim over a positive symbol called inf, and refuted it)
            raise self.fail(
                f"{name} is not a number here (infinity and NaN are not parameters); give a "
                "finite value or a parameter name"
            )
        if name in FUNCTIONS:
            raise self.fail(f"{name} is a function; write {name}(...)")
        if len(name) > 40:
            raise self.fail("a parameter name is longer than 40 characters")
        if name in self.symbols:
            return self.symbols[name]
        return KNOWN_SYMBOLS.get(name) or sp.Symbol(name, positive=True)

    def call(self, name: str) -> sp.Expr:
        func = FUNCTIONS.get(name)
        if func is None:
            raise self.fail(f"{name}(...) is not a known function")
        self.take("(")
        args = [self.expr()]
        while self.peek() and self.peek()[1] == ",":
            self.take(",")
            args.append(self.expr())
        self.take(")")
        if name not in _ARITY and len(args) != 1:
            raise self.fail(f"{name} takes one argument")
        if func in (sp.Abs, sp.Max, sp.Min):
            return self.extreme(func, args)
        value = func(*args)
        if func in (sp.log, sp.sqrt):
            self.guard(value, f"{name}({args[0]})")
        if func is sp.sqrt:
            self.root_folded(value, args[0], sp.S.Half)
        return value

    def root_folded(self, value: sp.Expr, base: sp.Expr, exponent: sp.Expr) -> None:
        """A root SymPy folded away (sqrt(u^2) is u where it takes u for nonnegative) must be
        shown nonnegative, as a principal root is: sqrt(c^2) was c for c about -9e-36."""
        from proofs.decide import known, trustworthy

        if value.is_Pow and value.base == base and value.exp == exponent:
            return
        if not trustworthy(base):  # (sqrt(2 c^2) was sqrt(2) c: a sign SymPy misjudged)
            raise self.fail(f"({base})^({exponent}) is folded to {value} by a sign SymPy misjudges")
        rooted = any(
            (p.is_Pow and p.exp.is_Rational and not p.exp.is_integer) or isinstance(p, sp.Abs)
            for p in sp.preorder_traversal(value)
        )
        if rooted or exponent.q % 2:  # (the root, or |u|, is still there: no sign was used)
            return
        if not known(value, "nonnegative"):
            raise self.fail(f"({base})^({exponent}) is folded to {value}, which is not shown")

    def extreme(self, func, args: list) -> sp.Expr:
        """abs, max or min, as SymPy folds them, once each fold is shown: SymPy compares
        closed values by a few digits, so |c| was c and max(x, x + c) was x + c for c about
        -9e-36. A fold that cannot be shown is refused."""
        from proofs.decide import closed_sign, known, trustworthy

        if func is sp.Abs:
            (u,) = args
            if not u.free_symbols:
                sign = closed_sign(u)
                if sign is None:
                    raise self.fail(f"the sign of {u} cannot be shown")
                return u if sign >= 0 else -u
            value = sp.Abs(u)
            if isinstance(value, sp.Abs) and value.args[0] == u:
                return value  # (not folded)
            if not trustworthy(u):  # (SymPy pulled |c| out of a product as c, or as 0)
                raise self.fail(f"abs({u}) is folded to {value} by a sign SymPy misjudges")
            if value == u and not known(u, "nonnegative"):
                raise self.fail(f"abs({u}) is folded to {u}, which is not shown")
            if value == -u and not known(u, "nonpositive"):
                raise self.fail(f"abs({u}) is folded to {-u}, which is not shown")
            return value
        value = func(*args)
        kept = set(value.args) if isinstance(value, func) else {value}
        fact = "nonnegative" if func is sp.Max else "nonpositive"
        for a in args:
            if a in kept:
                continue
            if not all(map(trustworthy, args)) or not any(
                known(k - a, fact) or known(sp.factor_terms(k - a), fact) for k in kept
            ):
                raise self.fail(f"{a} is dropped from {func.__name__}, which is not shown")
        return value


def _enclosed(term: sp.Expr) -> bool:
    """Is the closed `term` a finite real, shown by an arb ball? (SymPy judges a closed value by
    a few digits: log of e^-40 - log(1 + e^-40) - e^-80, about -9e-36, was real to it, and a
    divisor log(8) - 3 log(2) not known to be 0.)"""
    from proofs.numeric import NotNumeric, precision, to_ball

    if term.is_Rational:
        return True
    if term.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return False
    forms = [term, term.rewrite(sp.erfc)] if term.has(sp.erf) else [term]  # (1 - erf(30))
    for form in forms:
        for bits in (128, 1024):
            try:
                with precision(bits):
                    if to_ball(form).is_finite():
                        return True
            except (NotNumeric, ZeroDivisionError, ValueError, OverflowError):
                break
    return False


def parse(
    text: str,
    field: str = "value",
    symbols: Mapping[str, sp.Symbol] | None = None,
    guards: list | None = None,
) -> sp.Expr:
    """Read a formula written by a user into a SymPy expression, without evaluating any code.

    `symbols` maps names to the symbols a caller wants them to be (for example the ones a
    checker quantifies over). Raises :class:`InputError` naming `field` for anything outside
    the grammar of this module, or for a quotient, root, logarithm or power of numbers that is
    not a finite real (``sqrt(-1)``, ``log(0)``), even where it would cancel.

    SymPy simplifies while it builds, so the expression may be defined where the text is
    not: ``(x - 1)/(x - 1)`` is 1. A list given as `guards` receives every quotient (as
    ``1/b``), root, logarithm and non-integer or negative power the text wrote with a symbol
    in it, so a caller can require them defined too.
    """
    if not isinstance(text, str):
        raise InputError(f"{field}={text!r} is not text; give a formula as a string.")
    if len(text) > MAX_LENGTH:
        raise InputError(
            f"{field} is {len(text)} characters long; formulas are limited to "
            f"{MAX_LENGTH} characters."
        )
    parser = _Parser(text, field, symbols or {})
    value = parser.parse()
    if guards is not None:
        guards.extend(parser.guards)
    return value


def as_expr(
    value: Any,
    name: str,
    symbols: Mapping[str, sp.Symbol] | None = None,
    guards: list | None = None,
) -> sp.Expr:
    """A user parameter as a SymPy expression.

    SymPy objects pass through, their Floats made rationals (:func:`float_value`); Python and
    NumPy integers, ``Fraction``, ``Decimal`` and floats become exact rationals (a float becomes
    the rational it prints as, so ``0.1`` is 1/10); text goes through :func:`parse` (which
    fills `guards`, when given). Anything else is an :class:`InputError`.
    """
    if isinstance(value, sp.Basic):
        if not isinstance(value, sp.Expr):
            raise InputError(
                f"{name}={value!r} must be a number or a formula, not {type(value).__name__}."
            )
        return _finite_real(rationalize(_finite_real(value, name)), name)
    if isinstance(value, bool):
        raise InputError(f"{name}={value!r} must be a number or a SymPy expression, not a bool.")
    if isinstance(value, str):
        return _finite_real(parse(value, name, symbols, guards), name)
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"{name}={value} must be a finite number.")
        f = Fraction(value)
        return sp.Rational(f.numerator, f.denominator)
    if isinstance(value, numbers.Real):
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")):
            raise InputError(f"{name}={value!r} must be a finite number.")
        f = Fraction(repr(v))
        return sp.Rational(f.numerator, f.denominator)
    raise InputError(
        f"{name}={value!r} must be a number or a SymPy expression, not {type(value).__name__}."
    )


def _finite_real(value: sp.Expr, name: str) -> sp.Expr:
    """Refuse nan, infinities and non-real numbers: no parameter of a DP claim is one."""
    if (
        value.has(sp.nan, sp.zoo, sp.oo, -sp.oo)
        or value.has(sp.I)
        or (value.is_number and value.is_real is False)
    ):
        raise InputError(
            f"{name}={value} must be a finite real number or a formula in real parameters."
        )
    return value


_FLOAT_BITS = 2**14  # the largest binary exponent of a Float read as an exact rational
# (a Float of 10^(10^7) made a number of ten million digits, and printing it did not end)


def float_value(f: sp.Float) -> sp.Rational:
    """The rational a SymPy Float stands for: the shortest decimal that rounds back to the same
    binary value at the Float's own precision, as Python's ``repr`` does for a float. So
    ``Float(0.1)`` is 1/10, ``Float(1 - 1e-16)`` (0.9999999999999999) stays below 1 and
    ``Float(0.95, 1)`` (the 7-bit 0.953125) is 19/20. ``str`` would not do: it rounds to the
    Float's print precision, which may be another number (``str(Float(1 - 1e-16))`` is
    "1.00000000000000", ``str(Float(0.95, 1))`` is "1.")."""
    from mpmath import libmp

    mpf, prec = f._mpf_, f._prec
    if not f.is_finite:
        raise InputError(f"{f} is not a finite number.")
    if mpf[1] and abs(mpf[2] + mpf[3]) > _FLOAT_BITS:  # (mantissa, exponent, bit count)
        raise InputError(
            f"the Float {sp.Float(f, 5)} is beyond 2^±{_FLOAT_BITS}, too large or small to "
            "read exactly; write it as a power, e.g. 10**(-5000) as sp.Integer(10)**-5000."
        )
    if prec == 53 and _is_double(mpf):  # Python's own repr (the nearest of the shortest)
        q = Fraction(repr(float(f)))
        return sp.Rational(q.numerator, q.denominator)
    for digits in range(1, libmp.libmpf.repr_dps(prec) + 1):
        text = libmp.to_str(mpf, digits)
        if libmp.from_str(text, prec, libmp.round_nearest) == mpf:
            q = Fraction(text)
            return sp.Rational(q.numerator, q.denominator)
    return sp.Rational(f)  # not reached (repr_dps digits always round-trip): the exact value


def _is_double(mpf: tuple) -> bool:
    """Is this 53-bit mpmath value exactly a double? A SymPy Float's exponent has no bound:
    float() read Float("1e-400") as 0 (and a claim 1e-400 <= 0 was proved), made 1e400 inf
    and rounded a 53-bit value in the subnormal range to fewer digits."""
    from mpmath import libmp

    try:
        value = libmp.to_float(mpf)
    except OverflowError:
        return False
    return math.isfinite(value) and libmp.from_float(value) == mpf


def to_fraction(value: Any, name: str) -> Fraction:
    """A closed rational or Float as an exact ``Fraction`` (a Float by :func:`float_value`)."""
    e = value if isinstance(value, sp.Basic) else as_expr(value, name)
    if e.is_Float:
        e = float_value(e)
    if not e.is_Rational:
        raise InputError(f"{name}={value} must be a rational number here; give e.g. {name}=1/2.")
    return Fraction(int(e.p), int(e.q))


def rationalize(expr: Any) -> sp.Expr:
    """`expr` with every Float replaced by the rational it stands for (:func:`float_value`);
    nothing else changes.

    Use this, never ``sympy.nsimplify``, on values a verdict depends on: ``nsimplify``
    evaluates an exact expression to 30 digits and may replace it with a *different* simple
    number within 1e-15 (``nsimplify(1 + exp(-50))`` is 1), which would let a false claim pass.
    """
    e = expr if isinstance(expr, sp.Basic) else sp.sympify(expr)
    floats = e.atoms(sp.Float)
    if not floats:
        return e
    return e.xreplace({f: float_value(f) for f in floats})


def reserve(mechanism: Any, names: dict[str, str], where: str) -> None:
    """Refuse a mechanism whose parameter is named like one of the claim's own variables:
    the claim reads that name as its variable, and the two would be one symbol (a forced
    response whose truth probability was named t made a Chebyshev bound in the threshold t
    hold only where the threshold equals that probability, and a false bound was proved)."""
    # (a frequency oracle's report keeps only p* and q*: its oracle's parameters live on in
    # the oracle and in the domain, K >= 4 for Hadamard response)
    domain = mechanism.domain() if hasattr(mechanism, "domain") else ()
    parts = [mechanism, getattr(mechanism, "oracle", None), *domain]
    clash = sorted(set(symbols_of(*(p for p in parts if p is not None))) & set(names))
    if clash:
        name = clash[0]
        raise InputError(
            f"{type(mechanism).__name__} has a parameter named {name}, which {where} use for "
            f"{names[name]}; give the parameter another name, e.g. {name}_0."
        )


def symbols_of(*objects: Any) -> dict[str, sp.Symbol]:
    """name -> symbol for the free symbols of expressions and of the SymPy fields of
    descriptions (dataclasses), the first occurrence of a name winning."""
    table: dict[str, sp.Symbol] = {}
    for obj in objects:
        _collect(obj, table, 0)
    return table


def _collect(obj: Any, table: dict, depth: int) -> None:
    """Into ``table``, the symbols of ``obj``: an expression, a description's fields, and what
    tables and tuples hold (a FiniteMechanism's entries, a Composition's parts)."""
    if depth > 20:
        return
    if isinstance(obj, sp.Basic):
        for s in sorted(obj.free_symbols, key=str):
            table.setdefault(s.name, s)
        return
    fields = getattr(obj, "__dataclass_fields__", None)
    if fields:
        values = [getattr(obj, f) for f in fields]
    elif isinstance(obj, Mapping):
        values = list(obj.values())
    elif isinstance(obj, (tuple, list)):
        values = list(obj)
    else:
        return
    for value in values:
        _collect(value, table, depth + 1)


def by_name(expr: sp.Expr, table: Mapping[str, Any]) -> sp.Expr:
    """`expr` with each free symbol whose name is in `table` replaced by table[name]: a claim
    written with ``Symbol("epsilon")`` or the text "epsilon" means the mechanism's epsilon,
    whatever assumptions the user's symbol carries."""
    swap = {s: table[s.name] for s in expr.free_symbols if s.name in table and table[s.name] != s}
    return expr.xreplace(swap) if swap else expr


def one_per_name(values: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """`values` with every symbol that shares its name with another replaced by one symbol of
    that name carrying only the assumptions all of them carry: a claim written with
    ``Symbol("epsilon")`` in one field and the text "epsilon" in another speaks of one
    quantity, and a check over the weaker assumptions covers both readings."""
    named: dict[str, set] = {}
    for v in values.values():
        for s in v.free_symbols:
            named.setdefault(s.name, set()).add(s)
    swap = {}
    for name, group in named.items():
        if len(group) > 1:
            facts = [s.assumptions0 for s in group]
            common = {k: v for k, v in facts[0].items() if all(f.get(k) == v for f in facts)}
            one = sp.Symbol(name, **common)
            swap.update({s: one for s in group if s != one})
    return {f: v.xreplace(swap) for f, v in values.items()} if swap else dict(values)


def rule_expr(value: Any, name: str, allowed: Mapping[str, sp.Symbol]) -> sp.Expr:
    """A formula in a fixed vocabulary (a composition rule in epsilon_1 and epsilon_2, a bound
    in alpha, sigma, Delta): names are matched to `allowed` (a rule written with
    ``sym("epsilon_1")`` or ``Symbol("epsilon_1")`` means that symbol); any other name is an
    InputError naming the field."""
    expr = as_expr(value, name, symbols=allowed)
    extra = sorted({s.name for s in expr.free_symbols} - set(allowed))
    if extra:
        raise InputError(
            f"{name}={value} uses {', '.join(extra)}; write it in {', '.join(allowed)} only."
        )
    return expr.xreplace({s: allowed[s.name] for s in expr.free_symbols})
