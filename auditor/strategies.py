"""Hypothesis strategies for neighbouring datasets, one per relation.

    from hypothesis import given
    from auditor.strategies import neighbouring_pairs

    @given(neighbouring_pairs("replace-one", elements=st.integers(0, 9), max_size=20))
    def test_my_mechanism(pair):
        a, b = pair
        ...

Every generated pair is neighbouring under the named relation by construction, and the
auditor's own relation check agrees (a test holds the two together).
"""

from __future__ import annotations

from hypothesis import strategies as st

from proofs._errors import InputError

__all__ = ["neighbouring_pairs", "datasets"]

_RELATIONS = ("add-remove", "replace-one", "sensitivity")


def datasets(elements=None, min_size: int = 0, max_size: int = 10):
    """Lists of records (default: small integers)."""
    return st.lists(elements if elements is not None else st.integers(-5, 5),
                    min_size=min_size, max_size=max_size)


def _add_remove(elements, min_size: int, max_size: int):
    @st.composite
    def build(draw):
        base = draw(datasets(elements, min_size, max_size))
        extra = draw(elements)
        index = draw(st.integers(0, len(base)))
        bigger = base[:index] + [extra] + base[index:]
        return (bigger, base) if draw(st.booleans()) else (base, bigger)

    return build()


def _replace_one(elements, min_size: int, max_size: int):
    @st.composite
    def build(draw):
        base = draw(datasets(elements, max(min_size, 1), max_size))
        index = draw(st.integers(0, len(base) - 1))
        other = list(base)
        other[index] = draw(elements)
        return base, other

    return build()


def _sensitivity(sensitivity: float, min_size: int, max_size: int):
    answers = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)

    @st.composite
    def build(draw):
        a = draw(st.lists(answers, min_size=max(min_size, 1), max_size=max_size))
        moves = st.floats(-sensitivity, sensitivity, allow_nan=False)
        b = [x + draw(moves) for x in a]
        # float rounding may push |b - a| a hair past the sensitivity; clip it back inside
        b = [min(max(y, x - sensitivity), x + sensitivity) for x, y in zip(a, b)]
        return a, b

    return build()


def neighbouring_pairs(relation: str = "replace-one", elements=None, *, min_size: int = 0,
                       max_size: int = 10, sensitivity: float = 1.0):
    """A strategy of neighbouring pairs `(a, b)` under `relation`.

    - ``add-remove``: `b` is `a` with one record added (or removed), anywhere in the list;
    - ``replace-one``: same length, exactly one position may differ;
    - ``sensitivity``: query-answer vectors in which each answer moves by at most `sensitivity`.
    """
    rel = relation.replace("_", "-").lower()
    if rel not in _RELATIONS:
        raise InputError(f"relation={relation!r} is unknown; use one of {', '.join(_RELATIONS)}.")
    if not 0 <= min_size <= max_size:
        raise InputError(f"min_size={min_size}, max_size={max_size}: need 0 <= min_size <= max_size.")
    elements = elements if elements is not None else st.integers(-5, 5)
    if rel == "add-remove":
        return _add_remove(elements, min_size, max_size)
    if rel == "replace-one":
        return _replace_one(elements, min_size, max_size)
    if not sensitivity > 0:
        raise InputError(f"sensitivity={sensitivity} must be positive; e.g. sensitivity=1.")
    return _sensitivity(float(sensitivity), min_size, max_size)
