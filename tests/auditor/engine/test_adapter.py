"""The black-box adapter: calling conventions, output kinds, validation messages."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from auditor.engine.adapter import as_mechanism, draw, kind_of, one_shape
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
        ([1, 2**64 + 5, 2], "index 1: an integer outside the 64-bit range"),
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


def test_a_vector_of_strings_is_one_category_per_output():
    def batched(data, size):
        return np.full((size, 3), "a" if data else "b")

    rows = [("x", "y"), ("x", "y"), ("y", "x")]
    it = iter(rows)
    for out, first in (
        (draw(as_mechanism(batched), 1, 4, RNG), "['a', 'a', 'a']"),
        (draw(as_mechanism(lambda data: next(it)), None, 3, RNG), "['x', 'y']"),
    ):
        assert kind_of(out) == "category" and out.ndim == 1 and out[0] == first
    with pytest.raises(InputError, match="strings and numbers are not where"):
        rows = iter([("a", 1), (1, "a")])
        draw(as_mechanism(lambda data: next(rows)), None, 2, RNG)


def test_a_row_mixing_strings_and_numbers_is_one_category():
    """A label with a flag or a count, ``("x", True)``, was refused ("it mixes strings and
    numbers"); it is one category, its numbers in one form, so equal values are one
    category whatever their type."""
    rows = iter([("x", True), ("x", 1.0), ("x", np.int64(1)), ("y", 2.5), ("x", False)])
    out = draw(as_mechanism(lambda data: next(rows)), None, 5, RNG)
    assert kind_of(out) == "category"
    assert out.tolist() == ["['x', 1]"] * 3 + ["['y', 2.5]", "['x', 0]"]
    with pytest.raises(InputError, match="only finite real numbers"):
        draw(as_mechanism(lambda data: ("x", float("nan"))), None, 2, RNG)


def test_string_vectors_count_each_output_once():
    """Counted element by element, a row of d labels weighed d: disjoint rows came out
    inconclusive with counts of twice the sample, and ten copies of a correct ln 3-DP label
    were a violation on 3 of 20 seeds (the bounds assumed a tenth of the variance)."""
    from auditor import audit

    disjoint = audit(
        lambda data, size: np.full((size, 2), "A" if data[0] else "B"),
        [([1], [0])],
        epsilon=1.0,
        samples=20_000,
        seed=0,
        workers=1,
        progress=False,
    )
    w = disjoint.witness
    assert disjoint.violation and disjoint.unbounded_witness
    assert w.count_numerator <= w.certification_samples and w.count_denominator == 0

    pa, pb = np.array([0.099, 0.4505, 0.4505]), np.array([0.033, 0.4835, 0.4835])
    labels = np.array(["a", "b", "c"])

    def copies(data, size, rng):
        return np.repeat(labels[rng.choice(3, size=size, p=pa if data[0] else pb)][:, None], 10, 1)

    for seed in range(4):
        r = audit(
            copies,
            [([1], [0])],
            epsilon=np.log(3),
            samples=20_000,
            seed=seed,
            workers=1,
            progress=False,
        )
        w = r.witness
        assert max(w.count_numerator, w.count_denominator) <= w.certification_samples
        assert not r.violation


@pytest.mark.parametrize("raw", [1.5, None, np.float64(2.0), "abc"])
def test_a_batched_mechanism_returning_one_value_is_bad_input(raw):
    with pytest.raises(InputError, match="must return `size` outputs"):
        draw(as_mechanism(lambda data, size: raw), None, 4, RNG)


def test_a_mechanism_that_exits_is_bad_input_not_a_clean_exit():
    import sys

    with pytest.raises(InputError, match=r"sys.exit\(0\)"):
        draw(as_mechanism(lambda data: sys.exit(0)), None, 2, RNG)


def test_a_mechanism_calling_os_exit_in_this_process_is_bad_input_not_exit_code_0(tmp_path):
    """os._exit(0) in the mechanism ended dpaudit at once with exit code 0 ("nothing wrong
    found") and no word; during an audit it is now reported like sys.exit. (Run in a child
    process: a broken guard would end this one with code 0.)"""
    import os
    import subprocess
    import sys

    from proofs.io import exits_guarded

    f = tmp_path / "quits.py"
    f.write_text("import os\n\ndef mech(data, rng):\n    os._exit(0)\n")
    args = ["audit", f"{f}:mech", "--epsilon", "1", "--pair", "0", "1", "--workers", "1"]
    code = "import sys; from auditor.cli.main import main; sys.exit(main(sys.argv[1:]))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert f"{f}:mech called os._exit(0) on data=0; a mechanism must" in done.stderr
    real = os._exit
    with exits_guarded():
        with pytest.raises(InputError, match=r"os._exit\(3\)"):
            draw(as_mechanism(lambda data: os._exit(3)), None, 2, RNG)
        child = os.fork()  # a process forked meanwhile still exits as it asks
        if child == 0:
            try:
                os._exit(7)
            finally:
                real(1)  # (a guard that raised in the child: it still ends, and this fails)
        assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 7
    assert os._exit is real  # given back


def test_integers_and_reals_are_one_kind_across_chunks():
    """Mostly the integer 0, rarely a fraction: chunks of integers only and chunks with a
    fraction are the same mechanism, on every seed."""
    from auditor import audit

    def rare_fraction(data, rng):
        return 0 if rng.random() < 0.999 else float(np.round(rng.laplace(data[0], 1.0), 3))

    for seed in (0, 1):
        r = audit(
            rare_fraction,
            [([1], [0])],
            epsilon=1.0,
            samples=20_000,
            seed=seed,
            workers=1,
            progress=False,
        )
        assert not r.violation


def test_messages_name_what_is_wrong():
    from auditor import audit

    def lap(d, size, rng):
        return rng.laplace(d[0], 1.0, size)

    with pytest.raises(InputError, match=r"selection_samples=19999 leaves 1 of samples=20000"):
        audit(lap, [([1], [0])], epsilon=1.0, samples=20000, selection_samples=19999)


def _twelve_responses(gen, data, size):
    """Twelve randomized responses at 1/12 each, drawn from ``gen``: exactly 1-DP on all-zeros
    vs all-ones; slow enough (5 us an output) for the audit to use the process pool."""
    import time

    time.sleep(size * 5e-6)
    x = np.asarray(data, dtype=np.int64)
    return np.where(gen.random((size, 12)) >= 1 / (1 + np.exp(-1 / 12)), 1 - x, x)


class _OwnGenerator:
    """The twelve responses from a generator the object holds, like a library wrapper."""

    def __init__(self):
        self.gen = np.random.default_rng()

    def __call__(self, data, size):
        return _twelve_responses(self.gen, data, size)


def _on_the_pool(mech, seed):
    from auditor import audit

    return audit(
        mech,
        [([0] * 12, [1] * 12)],
        epsilon=1.0,
        samples=200_000,
        seed=seed,
        workers=2,
        progress=False,
    )


@functools.cache
def _own_generator_on_the_pool(seed):
    """One audit of a fresh _OwnGenerator per seed, shared by the tests that read it."""
    return _on_the_pool(_OwnGenerator(), seed)


def test_held_generators_are_found_and_reseeded_per_chunk():
    import functools
    import pickle
    import random

    from auditor.engine.adapter import held_generators

    g1, g2, g3 = np.random.default_rng(1), np.random.RandomState(2), random.Random(3)

    def closure(data):
        return g1.random() + g2.random() + g3.random()

    part = functools.partial(lambda data, gen: gen.random(), gen=np.random.default_rng(4))
    assert {id(g) for g in held_generators(closure)} == {id(g1), id(g2), id(g3)}
    assert len(held_generators(part)) == len(held_generators(_OwnGenerator())) == 1
    mech = _OwnGenerator()
    copies = [pickle.loads(pickle.dumps(mech)) for _ in range(2)]  # as workers get it
    a = draw(as_mechanism(copies[0]), [0] * 12, 64, np.random.default_rng([7, 0]))
    b = draw(as_mechanism(copies[1]), [0] * 12, 64, np.random.default_rng([7, 1]))
    c = draw(as_mechanism(copies[1]), [0] * 12, 64, np.random.default_rng([7, 0]))
    assert not np.array_equal(a, b) and np.array_equal(a, c)  # chunk streams, not copies


def test_a_mechanism_with_its_own_generator_is_no_false_alarm_on_the_pool():
    """Every worker unpickled the same generator state, so selection and certification drew
    the same noise: 13 of 20 seeds were violations with two workers, none with one."""
    assert not any(_own_generator_on_the_pool(seed).violation for seed in (0, 1))


class _CountedSeed:
    """The twelve responses, their randomness in a plain counter (a fresh generator from it on
    each call): nothing dpaudit could reseed."""

    def __init__(self):
        self.calls = 0

    def __call__(self, data, size):
        self.calls += 1
        return _twelve_responses(np.random.default_rng(self.calls), data, size)


def test_copies_that_repeat_each_other_are_audited_in_this_process():
    for seed in (0, 2):
        r = _on_the_pool(_CountedSeed(), seed)
        assert not r.violation and any("copies of the mechanism repeat" in n for n in r.notes)
    assert not any("copies" in n for n in _own_generator_on_the_pool(0).notes)


def test_a_fractional_key_is_never_truncated_on_an_integer_chunk():
    """A key 0.5 chosen where fractions occurred was cast to an integer chunk's dtype (0), so
    every 0 there counted as 0.5: a correct mechanism was a violation on 3 of 12 seeds."""
    from auditor.engine.events import KeyFn, KeySet
    from auditor.engine.executors import count_events

    half = KeySet(KeyFn(), (0.5, 1.0), ("0.5", "1"))
    ints, floats = np.array([0, 1, 0, 1, 0]), np.array([0.0, 0.5, 1.0, 0.5])
    assert count_events([half], ints).tolist() == [2] and half.contains(ints).sum() == 2
    assert count_events([half], floats).tolist() == [3] and half.contains(floats).sum() == 3
    big = KeySet(KeyFn(), (2**62 + 1,), ("big",))  # integers keep their own type, exactly
    assert count_events([big], np.array([2**62, 2**62 + 1])).tolist() == [1]


@pytest.mark.parametrize(
    "keys, y, hits",
    [
        ((2**60 + 1,), np.array([2.0**60, 0.5]), 0),  # no double is 2**60 + 1
        ((2**60,), np.array([2.0**60, 0.5]), 1),
        ((2**60 + 1, 0.5), np.array([2.0**60, 0.5]), 1),  # keys of both kinds
        ((258,), np.array([2, 2, 1], dtype=np.uint8), 0),  # was cast to uint8: 2
        ((2, 258), np.array([2, 2, 1], dtype=np.uint8), 2),
        ((-1, 5), np.array([2**64 - 1, 5], dtype=np.uint64), 1),
        ((2**63 + 5,), np.array([5, -1], dtype=np.int64), 0),
        ((2.0**60,), np.array([2**60, 2**60 + 1], dtype=np.int64), 1),
        ((1.0, 0.5, float("inf")), np.array([1, 0, 1]), 2),
        ((True,), np.array([1, 0, 2]), 1),
    ],
)
def test_keys_meet_outputs_of_another_type_exactly(keys, y, hits):
    """An output is in a key-set event when it equals a key as a number, whatever the types:
    cast to the chunk's dtype, 258 met a uint8 2, and 2**60 + 1 met the double 2**60, so
    membership depended on the rest of the chunk (a 1-DP mechanism of 61-bit codes with a
    rare 0.5 was a violation on 35 of 100 seeds at confidence 0.8)."""
    from auditor.engine.events import KeyFn, KeySet
    from auditor.engine.executors import count_events

    event = KeySet(KeyFn(), keys, tuple(map(str, keys)))
    assert event.contains(y).sum() == hits
    assert count_events([event], y).tolist() == [hits]


def test_integers_a_double_would_change_are_kept_or_refused():
    """NumPy makes doubles of a batch of Python integers beside a fraction, or beside one of
    2**63 and over: 2**60 + 1 became 2**60 in those batches only."""
    big = lambda x, rng: 2**60 + 1 if rng.random() < 0.9 else 2**63 + 5
    y = draw(as_mechanism(big), 0, 64, RNG)
    assert y.dtype == np.uint64 and set(y.tolist()) == {2**60 + 1, 2**63 + 5}
    mixed = lambda x, rng: 2**60 + 1 if rng.random() < 0.9 else 0.5
    with pytest.raises(InputError, match=r"beyond 2\*\*53 beside fractions") as info:
        draw(as_mechanism(mixed), 0, 64, RNG)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError, match="returned dict"):  # its keys were taken as outputs
        draw(as_mechanism(lambda x, size, rng: dict.fromkeys(range(size), x)), 0, 4, RNG)
    small = lambda x, rng: 2**53 if rng.random() < 0.9 else 0.5  # a double holds 2**53
    assert draw(as_mechanism(small), 0, 64, RNG).dtype == np.float64


def test_the_walk_for_generators_survives_odd_objects_and_large_globals():
    from auditor.engine.adapter import held_generators

    class Lazy:  # answers every attribute, as a proxy or a lazy settings stub does
        __slots__ = ()

        def __getattr__(self, name):
            return lambda *a, **k: None

    lazy, gen = Lazy(), np.random.default_rng(0)
    table = [gen, *range(10**6)]

    def mech(data, size):
        lazy.log(data)
        return table[0].random(size) + len(table)

    assert held_generators(mech) == [gen]
    assert draw(as_mechanism(mech), 0, 4, RNG).shape == (4,)


def test_copies_that_repeat_are_told_from_low_entropy_outputs():
    """64 outputs decided it: randomized response at epsilon 5 (seeded by dpaudit) was taken
    for repeating copies on 55 of 400 seeds, and a hidden-state one was missed on 50 of 50."""
    from auditor.engine.adapter import copies_repeat

    p = np.exp(5) / (1 + np.exp(5))

    class Hidden:  # a hand-written generator: nothing dpaudit could reseed
        def __init__(self):
            self.s = 12345

        def __call__(self, x):
            self.s = (6364136223846793005 * self.s + 1442695040888963407) % 2**64
            return x if (self.s >> 11) / 2**53 < p else 1 - x

    def seeded(x, rng):
        return x if rng.random() < p else 1 - x

    class HalfHidden(Hidden):  # the stream decides the coin, the hidden state the flip
        def __call__(self, x, rng):
            return super().__call__(x) if rng.random() < 0.5 else 1 - super().__call__(x)

    assert all(copies_repeat(as_mechanism(Hidden()), 0, s) for s in range(5))
    assert all(copies_repeat(as_mechanism(HalfHidden()), 0, s) for s in range(5))
    assert not any(copies_repeat(as_mechanism(seeded), 0, s) for s in range(40))


def test_torch_default_generator_is_seeded_from_the_stream_apart_from_numpy():
    """Seeded from the stream (a rerun replays), with a seed of its own: seeded with NumPy's
    seed, torch's Mersenne Twister replayed NumPy's legacy one, and a 0-DP mechanism XOR-ing
    one coin of each was a violation at epsilon 0.1 (bound 6.98)."""
    torch = pytest.importorskip("torch")
    from auditor.engine.adapter import processes_repeat

    mech = as_mechanism(lambda x, size: (x + torch.randn(size)).numpy())
    a, b = (draw(mech, 0.0, 8, np.random.default_rng(s)) for s in (1, 1))
    assert np.array_equal(a, b) and not np.array_equal(a, draw(mech, 0.0, 8, RNG))
    assert not processes_repeat(mech, 0.0, 1)
    xor = as_mechanism(lambda x: np.random.randint(0, 2) ^ int(torch.randint(0, 2, (1,)).item()))
    bits = np.concatenate([draw(xor, 0, 1, np.random.default_rng(s)) for s in range(2000)])
    assert 0.4 < bits.mean() < 0.6  # 0.0 when both were seeded alike


_SLOW_CALLS: list[int] = []


def _slow(x, rng):  # a millisecond at least per output (sent to copies by name: one list)
    import time

    _SLOW_CALLS.append(1)
    time.sleep(0.001)
    return x + rng.random()


def test_the_repeat_checks_stay_within_a_chunk_and_their_budget():
    """A check's draws grew to 4,096 rows whatever their width (10,000-wide rows: 1 GB) and
    its last round could take four times the budget (a 1 ms mechanism: 28 s for 20 s)."""
    from auditor.engine.adapter import copies_repeat, processes_repeat

    rows = []

    def wide(x, size, rng):
        rows.append(size)
        return rng.random((size, 10_000))

    assert not copies_repeat(as_mechanism(wide), 0, 1, budget=60)
    assert not processes_repeat(as_mechanism(wide), 0, 1, budget=60)
    assert max(rows) * 10_000 <= 2**20
    _SLOW_CALLS.clear()
    assert not copies_repeat(as_mechanism(_slow), 0.0, 1, budget=0.2)
    assert len(_SLOW_CALLS) == 4 * 16  # one round: the next (four times longer) would not fit


def test_state_drawn_from_the_first_stream_is_not_taken_for_repeating():
    """A projection drawn from the stream of its first call, kept afterwards: copies given
    other streams hold other projections, so their noise does not repeat."""
    from auditor.engine.adapter import copies_repeat

    class Sketch:
        def __init__(self):
            self.w = None

        def __call__(self, x, size, rng):
            if self.w is None:
                self.w = rng.normal(size=3)
            return np.round(x + rng.laplace(size=(size, 1)) * self.w, 3)

    assert not any(copies_repeat(as_mechanism(Sketch()), 0.0, s) for s in range(5))


def test_state_that_serves_one_dataset_is_found_on_the_other():
    from auditor.engine.adapter import copies_repeat

    class OneSided:  # the stream on dataset 0, a hand-written generator on dataset 1
        def __init__(self):
            self.s = 7

        def __call__(self, x, size, rng):
            if x == 0:
                return rng.integers(0, 10, size)
            self.s = (6364136223846793005 * self.s + 1442695040888963407) % 2**64
            return np.random.default_rng(self.s).integers(0, 10, size)

    assert not copies_repeat(as_mechanism(OneSided()), 0, 1)
    assert all(copies_repeat(as_mechanism(OneSided()), 0, s, other=1) for s in range(5))


def test_integers_near_2_53_and_of_every_type_stay_exact():
    """(A review's brute force: 2**53 + 1 beside a fraction met the double 2**53; NumPy
    integers and array rows passed the conversion's check; tallies of an int64 and a uint64
    chunk were joined as doubles.)"""
    from auditor.engine.crossfit import count_keys
    from auditor.engine.events import KeyFn, KeySet
    from auditor.engine.select import merge_tally, tally

    assert not KeySet(KeyFn(), (2**53 + 1, 0.5), ("a", "b")).contains(np.array([2.0**53])).any()
    for batch in (
        [2**53 + 1, 0.5],
        [np.int64(2**60 + 1), 0.5],
        [[np.int64(2**60 + 1), 1], [0.5, 1]],
        [np.array([2**60 + 1, 1]), np.array([0.5, 1.0])],
    ):
        mech = as_mechanism(lambda x, size, b=batch: b)
        with pytest.raises(InputError, match=r"beyond 2\*\*53"):
            draw(mech, 0, len(batch), RNG)
    kept = draw(as_mechanism(lambda x, size: [np.int64(2**60 + 1), np.uint64(2**63)]), 0, 2, RNG)
    assert kept.dtype == np.uint64 and kept[0] == 2**60 + 1
    a = np.array([2**60, 2**60 + 1, 2**60 + 1], np.int64)
    b = np.array([2**63, 5], np.uint64)
    t = merge_tally(merge_tally(None, tally(KeyFn(), a), 0, 3), tally(KeyFn(), b), 0, 2)
    assert count_keys(KeySet(KeyFn(), (2**60 + 1,), ("x",)), t).tolist() == [2, 0]


def test_outputs_changing_width_between_calls_are_bad_input():
    """The checks before the first chunk compared two draws of widths 2 and 3 element by
    element: a traceback and exit 3 instead of a message naming the output."""
    from auditor import audit

    calls = [0]

    def mech(data, size, rng):
        calls[0] += 1
        return rng.integers(0, 3, (size, 2 if calls[0] % 3 else 3))

    with pytest.raises(InputError, match=r"shape \(3,\).*differs from the shape \(2,\)"):
        audit(mech, [(1, 0)], epsilon=1.0, samples=20_000, seed=0, workers=1, progress=False)
    x, y = np.zeros((4, 2)), np.zeros((4, 3))
    with pytest.raises(InputError, match="differs from the shape"):
        one_shape(as_mechanism(mech), x, y)
    one_shape(as_mechanism(mech), x, x.astype(int))  # integers and reals are one kind


def test_a_mixed_row_holds_strings_and_plain_numbers_only():
    """Bytes or a complex number beside a string crashed the conversion (a traceback); a
    NumPy string wrote itself as np.str_('x'), another category than 'x'."""
    for bad in (("x", b"y"), ("x", 1j)):
        with pytest.raises(InputError, match="only finite real numbers and bools"):
            draw(as_mechanism(lambda data, bad=bad: bad), None, 2, RNG)
    rows = iter([(np.str_("x"), 1), ("x", 1.0), ("x", 2.0**60), ("x", 2**60)])
    out = draw(as_mechanism(lambda data: next(rows)), None, 4, RNG)
    assert out[0] == out[1] == "['x', 1]" and out[2] == out[3]
