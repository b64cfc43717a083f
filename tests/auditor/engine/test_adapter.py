"""The black-box adapter: calling conventions, output kinds, validation messages."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.engine.adapter import as_mechanism, draw, kind_of
from proofs.errors import InputError

RNG = np.random.default_rng(0)


def test_scalar_batched_and_rng_conventions():
    calls = []

    def scalar(data):
        calls.append(data)
        return 1.5

    def batched(data, size):
        return np.full(size, 2.0)

    def with_rng(data, size, rng):
        assert isinstance(rng, np.random.Generator)
        return rng.random(size)

    def scalar_rng(data, rng):
        return float(rng.random())

    assert draw(as_mechanism(scalar), 0, 7, RNG).tolist() == [1.5] * 7 and len(calls) == 7
    assert as_mechanism(batched).batched and not as_mechanism(batched).wants_rng
    assert draw(as_mechanism(batched), 0, 5, RNG).shape == (5,)
    assert draw(as_mechanism(with_rng), 0, 5, RNG).shape == (5,)
    assert draw(as_mechanism(scalar_rng), 0, 5, RNG).shape == (5,)


@pytest.mark.parametrize(
    "value, kind",
    [
        (1.5, "real"),
        (3, "discrete"),
        (True, "discrete"),
        ("yes", "category"),
        ((1.0, 2.0), "vector"),
        ([1, 2, 3], "vector"),
    ],
)
def test_output_kinds(value, kind):
    out = draw(as_mechanism(lambda data: value), None, 4, RNG)
    assert kind_of(out) == kind and out.shape[0] == 4


@pytest.mark.parametrize(
    "outputs, needle",
    [
        ([1.0, None, 2.0], "index 1"),
        ([1.0, 2.0, float("nan")], "index 2"),
        ([1.0, "a", 2.0], "index 1"),
        (["a", "b", 2.0], "index 2"),
        ([(1.0, 2.0), (1.0,), (3.0, 4.0)], "index 1"),
    ],
)
def test_bad_outputs_name_index(outputs, needle):
    it = iter(outputs)
    with pytest.raises(InputError, match=needle):
        draw(as_mechanism(lambda data: next(it)), None, len(outputs), RNG)


def test_nan_in_batched_array():
    def f(data, size):
        y = np.zeros(size)
        y[3] = np.nan
        return y

    with pytest.raises(InputError, match="index 3"):
        draw(as_mechanism(f), None, 10, RNG)


def test_raising_mechanism_is_named():
    def broken(data):
        raise KeyError("oops")

    with pytest.raises(InputError, match=r"broken.*KeyError"):
        draw(as_mechanism(broken), [1, 2], 3, RNG)


def test_not_callable():
    with pytest.raises(InputError, match="not callable"):
        as_mechanism(42)  # type: ignore[arg-type]
