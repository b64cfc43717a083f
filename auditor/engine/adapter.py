"""Black-box adapter: turn any Python callable into a batched, validated sampler.

A mechanism is a callable ``f(data)`` returning one output. If its signature has a ``size``
parameter it is called batched as ``f(data, size=n)`` and must return ``n`` outputs; if it has
``rng`` it is passed a seeded :class:`numpy.random.Generator`. Outputs may be real scalars,
integers, booleans, categories (str), or fixed-length vectors/tuples of numbers; a
fixed-length vector of strings is one category per output (the whole row).

Scalar callables are called in a bare list comprehension (the cheapest loop CPython offers);
everything after that is vectorised numpy over the collected batch.
"""

from __future__ import annotations

import copy
import functools
import inspect
import itertools
import math
import os
import random
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.engine.deadline import OutOfTime
from auditor.engine.result import dataset_words
from proofs.errors import InputError
from proofs.io import MechanismExit

__all__ = [
    "KINDS",
    "BadOutput",
    "ChangingOutputs",
    "Mechanism",
    "MechanismRaised",
    "as_mechanism",
    "copies_repeat",
    "draw",
    "held_generators",
    "moves_beyond_stream",
    "one_shape",
    "processes_repeat",
]

KINDS = ("real", "discrete", "category", "vector")


@dataclass(frozen=True, slots=True)
class Mechanism:
    """A callable plus how to call it. ``name`` is used in messages and reports."""

    func: Callable[..., Any]
    name: str
    batched: bool
    wants_rng: bool


def _callable_name(func: Callable[..., Any]) -> str:
    module = getattr(func, "__module__", None) or "?"
    qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    return f"{module}:{qual}"


def as_mechanism(func: Callable[..., Any] | Mechanism, name: str | None = None) -> Mechanism:
    """Inspect the signature of ``func`` once (batched? wants an rng?)."""
    if isinstance(func, Mechanism):
        return func
    if not callable(func):
        raise InputError(f"mechanism={func!r} is not callable; pass a function f(data).")
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        params = {}
    return Mechanism(
        func=func,
        name=name or _callable_name(func),
        batched="size" in params,
        wants_rng="rng" in params,
    )


def _call(mech: Mechanism, data: Any, n: int, rng: np.random.Generator) -> Any:
    cwd = _cwd()
    try:
        return _outputs(mech, data, n, rng)
    finally:  # (a mechanism that changes directory must not move the user's output files)
        if cwd is not None and _cwd() != cwd:
            os.chdir(cwd)


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # (a directory removed under us: nothing to restore)
        return None


def _own(v: Any) -> Any:
    """An output the mechanism cannot change after returning it: a mechanism that returns one
    buffer it refills on every call made every sample of a chunk its last one (and a private
    mechanism's audit a violation)."""
    if isinstance(v, (np.ndarray, list)):
        return v.copy()  # (a list's items are not copied: a vector of numbers is the rule)
    if isinstance(v, (dict, bytearray)):
        return copy.deepcopy(v)
    return v


_SCALARS = (float, int, bool, str, np.generic)


def _unshared(out: Any) -> Any:
    """A batch no one else holds: a view, or an array the mechanism keeps (a buffer it refills
    on every call would rewrite the samples kept from its last call), is copied; a fresh
    array, the rule, is not (a chunk's copy would double its memory)."""
    if isinstance(out, np.ndarray) and (out.base is not None or sys.getrefcount(out) > _OWN_REFS):
        return out.copy()
    return out


_OWN_REFS = 3  # (getrefcount's own argument, this frame's name and the caller's)


def _each(f: Callable[..., Any], data: Any, rng: Any, n: int) -> list[Any]:
    """n outputs of ``f(data)`` (``f(data, rng=rng)`` when rng is not None), each the
    mechanism's no longer (see :func:`_own`); scalars, the common case, are taken as they are,
    at no cost per call."""
    if n <= 0:
        return []
    if rng is None:
        first = f(data)
        if isinstance(first, _SCALARS):
            return [first] + [f(data) for _ in range(n - 1)]
        return [_own(first)] + [_own(f(data)) for _ in range(n - 1)]
    first = f(data, rng=rng)
    if isinstance(first, _SCALARS):
        return [first] + [f(data, rng=rng) for _ in range(n - 1)]
    return [_own(first)] + [_own(f(data, rng=rng)) for _ in range(n - 1)]


def _outputs(mech: Mechanism, data: Any, n: int, rng: np.random.Generator) -> Any:
    f = mech.func
    try:
        if mech.batched:
            out = f(data, size=n, rng=rng) if mech.wants_rng else f(data, size=n)
            return _unshared(out)
        return _each(f, data, rng if mech.wants_rng else None, n)
    except InputError as exc:  # the mechanism refused this data (a catalogue entry says why)
        exc.from_mechanism = True  # (kept as it is: a caller may catch its own subclass)
        raise
    except SystemExit as exc:  # exit code 0 would read as "nothing wrong found"
        how = "os._exit" if isinstance(exc, MechanismExit) else "sys.exit"
        raise InputError(
            f"mechanism {mech.name} called {how}({exc.code!r}) on data={dataset_words(data)}; a "
            "mechanism must return its output, not end the audit."
        ) from None
    except (KeyboardInterrupt, OutOfTime):
        raise
    except BaseException as exc:  # the mechanism's own bug (GeneratorExit too): name it
        raise MechanismRaised(
            f"mechanism {mech.name} raised {type(exc).__name__}: {exc} on "
            f"data={dataset_words(data)}",
            "fix the mechanism or pass data it accepts.",
        ) from exc


class MechanismRaised(InputError):
    """The mechanism raised on some data: ``args`` are what happened and the advice (a caller
    who knows better, as for a catalogue entry fed a relation's datasets, gives its own advice
    with ``what``). An :class:`InputError` of the mechanism's own passes as it is, with
    ``from_mechanism`` set."""

    @property
    def what(self) -> str:
        return self.args[0]

    def __str__(self) -> str:
        return "; ".join(self.args)


def _first_bad(values: list[Any] | np.ndarray, pred: Callable[[Any], bool]) -> int:
    for i, v in enumerate(values):
        if pred(v):
            return i
    return -1


def _is_nan_like(v: Any) -> bool:
    if v is None:
        return True
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.isnan(arr).any())


def _too_large(v: Any) -> bool:
    try:
        np.asarray(v, dtype=float)
    except OverflowError:  # an integer beyond a double's range (10**400)
        return True
    except (TypeError, ValueError):
        return False
    return False


class BadOutput(InputError):
    """A mechanism's output that cannot be audited (NaN, infinite, of a changing shape...)."""


class ChangingOutputs(BadOutput):
    """Outputs of one kind or shape on some data and another on other data."""


def _bad_output(mech: Mechanism, index: int, value: Any, why: str) -> InputError:
    try:
        shown = repr(value)
    except Exception:  # (an output whose own repr fails)
        shown = f"a {type(value).__name__}"
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return BadOutput(
        f"mechanism {mech.name} returned {shown} at sample index {index}: {why}; "
        "make it return a finite number, bool, str or fixed-length vector."
    )


def _convert(mech: Mechanism, raw: Any, n: int) -> np.ndarray:
    if isinstance(raw, np.ndarray) and raw.dtype != object:
        arr = raw
    else:
        if isinstance(raw, (str, bytes, dict)) or not hasattr(raw, "__len__"):
            raise InputError(
                f"mechanism {mech.name} returned {type(raw).__name__} {raw!r:.60} for size={n}; "
                "a batched mechanism must return `size` outputs (a list or an array)."
            )
        values = raw if isinstance(raw, list) else list(raw)
        if len(values) != n:
            raise InputError(
                f"mechanism {mech.name} returned {len(values)} outputs for size={n}; "
                "a batched mechanism must return exactly `size` outputs."
            )
        arr = _fast_array(values)
        if arr is None or (arr.dtype.kind == "U" and arr.ndim == 1):
            return _slow_convert(mech, values)
        if arr.dtype.kind == "f" and arr.size and not float(np.abs(arr).max()) < 2**53:
            arr = _exact_array(mech, values, arr)
        if arr.dtype.kind == "U":  # rows of strings: numpy would have made text of numbers
            return _validate_array(mech, _text_rows(mech, values))
    if arr.shape[:1] != (n,):
        raise InputError(
            f"mechanism {mech.name} returned an array of shape {arr.shape} for size={n}; "
            "a batched mechanism must return `size` outputs along the first axis."
        )
    return _validate_array(mech, arr)


def _text_rows(mech: Mechanism, values: list[Any]) -> np.ndarray:
    """Rows holding strings: rows of strings throughout as they are, and rows mixing strings
    and numbers (a label with a count or a flag, ``("x", True)``) as one category each, the
    row written with its numbers in one form (a bool or an integral float as the integer:
    ``['x', 1]``), so that equal values are one category whatever their type. A row whose
    strings and numbers sit elsewhere than in the first row's (a string where the first had a
    number) is refused: such a mechanism's outputs change shape."""
    items = lambda v: np.ravel(np.asarray(v, dtype=object)).tolist()
    where = lambda v: tuple(isinstance(x, str) for x in items(v))
    first = where(values[0])
    i = _first_bad(values, lambda v: where(v) != first)
    if i >= 0:
        raise _bad_output(
            mech, i, values[i], "its strings and numbers are not where the first output has them"
        )
    if all(first):
        return np.asarray(values, dtype=str)
    i = _first_bad(values, lambda v: not all(map(_plain_number, items(v))))
    if i >= 0:
        raise _bad_output(
            mech, i, values[i], "beside a string, only finite real numbers and bools are outputs"
        )
    return np.array([repr([_plain(x) for x in items(v)]) for v in values], dtype=str)


def _plain_number(x: Any) -> bool:
    """A string, or a number a category can hold: a bool, an integer, a finite real (no bytes,
    no complex number, no NaN)."""
    if isinstance(x, (str, bool, int, np.bool_, np.integer)):
        return True
    return isinstance(x, (float, np.floating)) and math.isfinite(x)


def _plain(x: Any) -> Any:
    """One form for an item of a category: a Python str for a string (NumPy's string scalar
    writes itself otherwise), an integer for a bool or an integral value, a Python float
    otherwise, so equal values are one category whatever their type."""
    if isinstance(x, str):
        return str(x)
    if isinstance(x, (bool, int, np.bool_, np.integer)):
        return int(x)
    v = float(x)
    return int(v) if v.is_integer() else v


def _exact_array(mech: Mechanism, values: list[Any], arr: np.ndarray) -> np.ndarray:
    """NumPy made doubles of a batch holding integers beyond 2**53 (beside a fraction, or
    beside one of 2**63 and over): such an integer changed value, and whether an output was
    in an event then depended on the rest of its batch. Integers in [0, 2**64) throughout are
    kept exactly as uint64; an integer a double changes beside fractions is refused."""
    i = _first_bad(values, _inexact_integer)
    if i < 0:
        return arr
    try:
        exact = np.asarray(values, dtype=np.uint64)
    except (OverflowError, TypeError, ValueError):
        exact = None
    if exact is not None and _first_bad(values, lambda v: not _all_integers(v)) < 0:
        return exact
    raise _bad_output(
        mech,
        i,
        values[i],
        "an integer beyond 2**53 beside fractions or negative numbers, which no 64-bit type "
        "holds together exactly; return floats throughout, or integers in one 64-bit range",
    )


def _items(v: Any):
    """The numbers of an output: its own, or its coordinates' (a row may be an array)."""
    return (
        np.ravel(np.asarray(v, dtype=object)) if isinstance(v, (list, tuple, np.ndarray)) else (v,)
    )


def _all_integers(v: Any) -> bool:
    items = _items(v)
    return all(isinstance(x, (int, np.integer)) for x in items)


def _inexact_integer(v: Any) -> bool:
    """Does the output (or a coordinate of it) hold an integer that a double changes?"""
    return any(  # (as Python ints: NumPy compares np.int64(2**60 + 1) == 2.0**60 as doubles)
        isinstance(x, (int, np.integer)) and not isinstance(x, bool) and float(x) != int(x)
        for x in _items(v)
    )


def _fast_array(values: list[Any]) -> np.ndarray | None:
    """One C-level conversion for the common case (all numbers, or equal-length vectors)."""
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):
        return None
    except Exception as exc:  # an output's own __array__ failed: the mechanism's fault
        raise BadOutput(
            f"converting an output of type {type(values[0]).__name__} to numbers raised "
            f"{type(exc).__name__}: {exc}; make the mechanism return a finite number, bool, "
            "str or fixed-length vector."
        ) from exc
    return None if arr.dtype == object else arr


def _slow_convert(mech: Mechanism, values: list[Any]) -> np.ndarray:
    """Categories, or a batch with a bad output: find and name the first offending sample."""
    if any(isinstance(v, str) for v in values):
        first_is_str = isinstance(values[0], str)
        i = _first_bad(values, lambda v: isinstance(v, str) != first_is_str)
        if i >= 0:
            raise _bad_output(
                mech, i, values[i], f"its type differs from the first output {values[0]!r}"
            )
        return np.asarray(values, dtype=str)
    i = _first_bad(values, _too_large)
    if i >= 0:
        raise _bad_output(mech, i, values[i], "it is beyond a double's range")
    i = _first_bad(values, _is_nan_like)
    if i >= 0:
        raise _bad_output(mech, i, values[i], "NaN or None is not an output")
    try:
        lengths = [np.size(v) for v in values]
    except ValueError:  # (numpy refuses a ragged nested list)
        i = next((j for j, v in enumerate(values) if not _regular(v)), 0)
        raise _bad_output(
            mech, i, values[i], "a ragged nested output (rows of unequal length)"
        ) from None
    i = _first_bad(lengths, lambda k: k != lengths[0])
    if i >= 0:
        raise _bad_output(
            mech, i, values[i], f"length differs from the first output's {lengths[0]}"
        )
    shapes = [np.shape(v) for v in values]
    i = _first_bad(shapes, lambda s: s != shapes[0])
    if i >= 0:
        raise _bad_output(
            mech,
            i,
            values[i],
            f"its shape {shapes[i]} differs from the first output's {shapes[0]} "
            "(a vector on some calls and a number on others)",
        )
    i = _first_bad(values, lambda v: isinstance(v, int) and not -(2**63) <= v < 2**64)
    if i >= 0:
        raise _bad_output(
            mech, i, values[i], "an integer outside the 64-bit range (map it into range first)"
        )
    i = max(
        _first_bad(values, lambda v: not isinstance(v, (int, float, bool, np.number, tuple, list))),
        0,
    )
    raise _bad_output(mech, i, values[i], "mixed or non-numeric output types")


def _row_categories(arr: np.ndarray) -> np.ndarray:
    """Each output of a vector of strings as one category: the row written as a list, so
    that ('a', 'b') is the category "['a', 'b']". An event is then a set of whole rows: each
    row counts once (counted element by element, a row of d copies of a label would weigh d
    and the bounds would assume a tenth of the variance they have)."""
    flat = arr.reshape(arr.shape[0], -1)
    return np.array([repr(row) for row in flat.tolist()], dtype=str)


def _regular(v: Any) -> bool:
    try:
        np.size(v)
    except ValueError:
        return False
    return True


def _validate_array(mech: Mechanism, arr: np.ndarray) -> np.ndarray:
    if arr.dtype.kind in "US":
        if arr.dtype.kind == "S":
            arr = np.char.decode(arr, "latin-1")
        arr = arr.astype(str)
        return _row_categories(arr) if arr.ndim > 1 else arr
    if arr.dtype.kind not in "biuf":
        raise _bad_output(mech, 0, arr[0], f"unsupported output type {arr.dtype}")
    if arr.ndim > 2:
        arr = arr.reshape(arr.shape[0], -1)
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise _bad_output(mech, 0, arr[0], "an empty output holds nothing to audit")
    if arr.dtype.kind == "f":
        finite = np.isfinite(arr) if arr.ndim == 1 else np.isfinite(arr).all(axis=1)
        if not finite.all():
            i = int(np.argmin(finite))
            kind = "NaN" if np.isnan(arr[i]).any() else "infinity"
            raise _bad_output(mech, i, arr[i], f"{kind} is not an output (return finite numbers)")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64)
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:  # long double: rounded to double, a
        arr = arr.astype(np.float64)  # post-processing (its low bits are not audited)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    return arr


def kind_of(arr: np.ndarray) -> str:
    """The output kind of a validated batch: one of :data:`KINDS`."""
    if arr.dtype.kind == "U":
        return "category"
    if arr.ndim == 2:
        return "vector"
    return "discrete" if arr.dtype.kind in "iu" else "real"


# Seeding shared generators and drawing from them is one step: threads of one process (a Dask
# worker with several threads) would otherwise reseed them under one another's draws. (An
# RLock: a mechanism may itself draw from another, in its own thread.)
_SEEDED_DRAW = threading.RLock()


def draw(mech: Mechanism, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` validated outputs of ``mech`` on ``data`` as one numpy array."""
    held = held_generators(mech.func)
    if mech.wants_rng and not held:  # (the rng is this draw's own)
        return _convert(mech, _call(mech, data, n, rng), n)
    with _SEEDED_DRAW:
        if not mech.wants_rng:
            # Mechanisms that use global randomness: seed it from our stream so a run replays.
            s = int(rng.integers(2**32))
            random.seed(s)
            np.random.seed(s)
            torch = sys.modules.get("torch")
            if torch is not None:  # a seed of its own: seeded with s, torch's Mersenne Twister
                # would replay NumPy's legacy one draw for draw
                torch.manual_seed(int(np.random.SeedSequence([s, 0x70C5]).generate_state(1)[0]))
        _reseed(held, rng)
        return _convert(mech, _call(mech, data, n, rng), n)


_MAX_NODES = 2000  # objects looked at per mechanism (a model's weights are not walked into)
_WIDE = 200  # items looked at per container
_LEAVES = (str, bytes, int, float, complex, bool, type(None), np.ndarray, np.generic, type)


def held_generators(func: Any) -> list[Any]:
    """The random generators a mechanism holds: NumPy ``Generator`` and ``RandomState``,
    ``random.Random`` and ``torch.Generator`` objects reachable from the callable through its
    bound instance, attributes, closure, defaults, ``functools.partial`` arguments and the
    module globals its code names (a bounded walk, in a fixed order; an object that will not
    show its attributes is passed over)."""
    torch = sys.modules.get("torch")
    kinds: tuple[type, ...] = (np.random.Generator, np.random.RandomState, random.Random)
    if torch is not None:
        kinds += (torch.Generator,)
    found, seen, todo = [], set(), [func]
    while todo and len(seen) < _MAX_NODES:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (*_LEAVES, types.ModuleType)):
            continue
        seen.add(id(obj))
        if isinstance(obj, kinds):
            found.append(obj)
        elif torch is None or not isinstance(obj, torch.Tensor):
            try:
                todo += _inside(obj)
            except Exception:  # a proxy or a lazy object that answers oddly: not walked
                continue
    return found


def _inside(obj: Any) -> list[Any]:
    """What a generator could hide in, one step down (at most _WIDE items of a container;
    sets are skipped: their order changes between runs, and so would the seeds)."""
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, types.FunctionType):
        out = [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
        out += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
        return out + [obj.__globals__[k] for k in obj.__code__.co_names if k in obj.__globals__]
    if isinstance(obj, functools.partial):
        return [obj.func, *obj.args, *obj.keywords.values()]
    if isinstance(obj, (list, tuple)):
        return list(itertools.islice(obj, _WIDE))
    if isinstance(obj, dict):
        return list(itertools.islice(obj.values(), _WIDE))
    if isinstance(obj, (set, frozenset)):
        return []
    out = []
    try:
        attrs = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        attrs = None
    if isinstance(attrs, dict):
        out += list(itertools.islice(attrs.values(), _WIDE))
    for k in type(obj).__mro__:
        for slot in vars(k).get("__slots__", ()) if isinstance(k, type) else ():
            if isinstance(slot, str):
                try:
                    out.append(object.__getattribute__(obj, slot))
                except AttributeError:
                    pass
    call = next((vars(k)["__call__"] for k in type(obj).__mro__ if "__call__" in vars(k)), 0)
    if isinstance(call, types.FunctionType):
        out.append(call)
    return out


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


_CHECK_ELEMENTS = 1 << 20  # a check's draw grows no wider than an audit's chunk (plan.py)


_ALONE = object()  # no second dataset for the repeat checks


def _turn(data: Any, other: Any, size: int) -> Any:
    """The dataset of a repeat check's round of ``size`` outputs (16, 64, ...): ``data`` and
    ``other`` in turn, when there is another."""
    return data if other is _ALONE or (size.bit_length() // 2) % 2 == 0 else other


def _stream(seed: int, tag: int, k: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, tag, k]))


def _differ(x: np.ndarray, y: np.ndarray, size: int) -> np.ndarray:
    """Which of ``size`` outputs differ between two draws (rows of a vector output)."""
    return np.asarray(x != y).reshape(size, -1).any(axis=1)


def one_shape(mech: Mechanism, *draws: np.ndarray) -> None:
    """Refuse draws of one mechanism whose outputs change shape, or change from numbers to
    categories, between calls (integers and reals are one kind of number)."""
    first = draws[0]
    for y in draws[1:]:
        if y.shape[1:] != first.shape[1:] or (kind_of(y) == "category") != (
            kind_of(first) == "category"
        ):
            raise _bad_output(
                mech,
                0,
                y[0],
                f"its shape {y.shape[1:]} ({kind_of(y)}) differs from the shape "
                f"{first.shape[1:]} ({kind_of(first)}) of another call's outputs",
            )


def _search(
    mech: Mechanism,
    round_: Callable[[int], tuple],
    judge: Callable[..., Any],
    budget: float,
    size: int = 16,
) -> Any:
    """Draw rounds of ``size``, four times that, ... up to 4,096 outputs until ``judge``
    decides (not None), while a draw stays within an audit chunk's elements and the next
    round, four times this one, fits in ``budget`` seconds; None when undecided. Draws whose
    outputs change shape are bad input (:func:`one_shape`)."""
    t0 = time.perf_counter()
    while True:
        t = time.perf_counter()
        draws = round_(size)
        one_shape(mech, *draws)
        verdict = judge(*draws, size)
        if verdict is not None:
            return verdict
        now = time.perf_counter()
        if size >= 4096 or 4 * draws[0].size > _CHECK_ELEMENTS or now - t0 + 4 * (now - t) > budget:
            return None
        size *= 4


def _restarts(x1: np.ndarray, y1: np.ndarray, x2: np.ndarray, y2: np.ndarray, size: int):
    """Does state beyond the stream start alike in two copies? Copy one drew ``x1`` from a
    stream S, then ``y1`` from a stream T; copy two drew ``x2`` and ``y2``, both from T.
    Where ``x2`` and ``y2`` differ, something besides the stream moved the outputs; when the
    second calls ``y1`` and ``y2`` (one stream, one call count) nonetheless agree exactly, that
    something was alike in both copies whatever stream drew their first call (state drawn
    from the first stream, as a lazily built projection, would differ). Decided once ``x2``
    and ``y2`` differ in at least 16 of ``size`` outputs, so that a chance match is
    negligible; None before (draw more: state that moves rare outputs, as the flip of a
    randomized response at a large epsilon, shows only in many)."""
    if int(np.count_nonzero(_differ(x2, y2, size))) >= 16:
        return not _differ(y1, y2, size).any()
    return None


def copies_repeat(
    mech: Mechanism, data: Any, seed: int, budget: float = 1.0, other: Any = _ALONE
) -> bool:
    """Do two copies of the mechanism (as workers get it) repeat each other's noise? Then part
    of its randomness lives in state that :func:`reseed_held` cannot reach (a hand-written
    generator, an extension object, a counter), that state starts alike in every copy, and a
    worker pool would reuse noise across phases and datasets, even when the rest of the noise
    comes from the stream it is given (the test of :func:`_restarts`, on two fresh copies
    per round, on ``data`` and ``other`` in turn when given: the state may serve one dataset
    only). A mechanism that cannot be told within ``budget`` seconds is taken as not
    repeating: its outputs depend on the stream alone, or barely on anything else."""
    import cloudpickle

    try:
        blob = cloudpickle.dumps(mech.func)
    except Exception:  # the pool cannot ship it either; it says so itself
        return False
    copy = lambda: Mechanism(cloudpickle.loads(blob), mech.name, mech.batched, mech.wants_rng)

    def round_(size: int) -> tuple:
        one, two = copy(), copy()  # fresh copies, as each worker starts from the pickled state
        s = lambda: _stream(seed, 0xC0B1E5, 2 * size)
        t = lambda: _stream(seed, 0xC0B1E5, 2 * size + 1)
        d = _turn(data, other, size)
        return tuple(draw(m, d, size, g()) for m, g in ((one, s), (one, t), (two, t), (two, t)))

    return bool(_search(mech, round_, _restarts, budget))


def moves_beyond_stream(
    mech: Mechanism, data: Any, seed: int, budget: float, other: Any = _ALONE
) -> int:
    """The draw size at which two draws of the mechanism from one stream, in this process,
    differ in at least 16 outputs: state beyond the stream moves its outputs. 0 when they do
    not within ``budget`` seconds (4,096 outputs at most): the stream decides them."""

    def round_(size: int) -> tuple:
        d = _turn(data, other, size)
        return tuple(draw(mech, d, size, _stream(seed, 0x5A3E, size)) for _ in range(2))

    def judge(x, y, size):
        return size if int(np.count_nonzero(_differ(x, y, size))) >= 16 else None

    return _search(mech, round_, judge, budget) or 0


def _fresh_draws(blob: bytes, mech: Mechanism, data: Any, size: int, keys: list[list[int]]):
    """In a new process: the mechanism's first two draws, from the streams of ``keys``."""
    from auditor.engine.shipping import unship

    copy = Mechanism(unship(blob), mech.name, mech.batched, mech.wants_rng)
    return tuple(
        draw(copy, data, size, np.random.default_rng(np.random.SeedSequence(k))) for k in keys
    )


def processes_repeat(
    mech: Mechanism,
    data: Any,
    seed: int,
    budget: float = 20.0,
    other: Any = _ALONE,
    first: int | None = None,
) -> bool:
    """Do two new processes repeat each other's noise? Then part of the mechanism's randomness
    restarts from one state in every process (a generator or a counter set when its module is
    imported, beyond :func:`reseed_held`'s reach), and a run resumed in a new process, or a
    pool's workers, would draw noise already used, even when the rest of the noise comes from
    the stream it is given. The test of :func:`copies_repeat` on copies that each import the
    mechanism's module afresh (a copy in this process shares the module's state); it starts
    no process unless two draws from one stream differ here (:func:`moves_beyond_stream`,
    or its answer ``first`` when already asked). False when the mechanism cannot be pickled or
    loaded there."""
    from loky import ProcessPoolExecutor

    from auditor.engine.shipping import ship

    t0 = time.perf_counter()
    if first is None:
        first = moves_beyond_stream(mech, data, seed, budget / 4, other)
    if not first:
        return False
    try:
        blob = ship(mech.func)
    except Exception:
        return False
    bare = Mechanism(None, mech.name, mech.batched, mech.wants_rng)

    def round_(size: int) -> tuple:
        s, t = [seed, 0xF7E5, 2 * size], [seed, 0xF7E5, 2 * size + 1]
        pools = [ProcessPoolExecutor(max_workers=1) for _ in range(2)]  # a new process each
        try:  # (started together: the two start-ups overlap)
            jobs = [
                pool.submit(_fresh_draws, blob, bare, _turn(data, other, size), size, keys)
                for pool, keys in zip(pools, ([s, t], [t, t]), strict=True)
            ]
            wait = max(budget - (time.perf_counter() - t0), 10.0)
            return (*jobs[0].result(timeout=wait), *jobs[1].result(timeout=wait))
        finally:
            for pool in pools:
                pool.shutdown(wait=False, kill_workers=True)

    try:
        return bool(_search(mech, round_, _restarts, budget - (time.perf_counter() - t0), first))
    except Exception:  # its module cannot be imported there (workers fail too), or slow
        return False


def pickled_by_reference(func: Any) -> bool:
    """Is ``func`` sent to workers by name (its module imported there afresh), not by value?
    Unpickling it here then gives back the very object."""
    import cloudpickle

    try:
        return cloudpickle.loads(cloudpickle.dumps(func)) is func
    except Exception:
        return False


def reseed_held(func: Any, rng: np.random.Generator) -> None:
    """Seed every generator the mechanism holds from the chunk's stream. A mechanism is
    shipped to each worker as a copy: without this, every copy restarts from one generator
    state, so selection and certification (and both datasets) would see the same noise, and
    the event chosen on it would be certified on it (false alarms)."""
    _reseed(held_generators(func), rng)


def _reseed(held: list[Any], rng: np.random.Generator) -> None:
    for g in held:
        s = int(rng.integers(2**63))
        try:
            if isinstance(g, np.random.Generator):
                g.bit_generator.state = type(g.bit_generator)(s).state
            elif isinstance(g, np.random.RandomState):
                g.seed(s % 2**32)
            elif isinstance(g, random.Random):
                g.seed(s)
            else:  # torch.Generator
                g.manual_seed(s)
        except Exception:  # a bit generator that cannot be built from a seed: left as it is
            continue
