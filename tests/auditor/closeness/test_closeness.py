"""Closeness: known answers, brute-force agreement (Hypothesis), the exact (n, t) solver, CSV
loading. (`dpaudit closeness` is tested in tests/auditor/cli/test_closeness.py.)"""

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from auditor.closeness import (
    DISTANCES,
    best_reference_set,
    closeness,
    distribution_distance,
    load_table,
    table_from_columns,
)
from proofs.errors import InputError

# ---------------------------------------------------------------------------------------------
# Brute-force references: per class, straight from the definitions (Fractions where rational).
# ---------------------------------------------------------------------------------------------


def _brute_distance(p, q, distance, ordered):
    """D(p, q) from the definitions; p and q are lists of Fractions over the same sorted values."""
    diff = [a - b for a, b in zip(p, q, strict=True)]
    if distance == "tv" or (distance == "emd" and not ordered):
        return sum(abs(d) for d in diff) / 2
    if distance == "l1":
        return sum(abs(d) for d in diff)
    if distance == "emd":
        if len(p) == 1:
            return Fraction(0)
        return sum(abs(sum(diff[: i + 1])) for i in range(len(p))) / (len(p) - 1)
    if distance == "l2":
        return math.sqrt(sum(float(d) ** 2 for d in diff))
    if any(a > 0 and b == 0 for a, b in zip(p, q, strict=True)):
        return math.inf
    return sum(float(a) * math.log(float(a) / float(b)) for a, b in zip(p, q, strict=True) if a > 0)


def _brute_classes(rows, distance, ordered):
    """{qi tuple: (distance, first row)} for rows of (qi tuple, sensitive value)."""
    values = sorted({s for _, s in rows}, key=float if ordered else str)
    total = len(rows)
    q = [Fraction(sum(1 for _, s in rows if s == v), total) for v in values]
    out = {}
    for i, (key, _) in enumerate(rows):
        if key in out:
            continue
        members = [s for k, s in rows if k == key]
        p = [Fraction(members.count(v), len(members)) for v in values]
        out[key] = (_brute_distance(p, q, distance, ordered), i)
    return out


tables = st.lists(
    st.tuples(
        st.tuples(st.sampled_from("ab"), st.sampled_from("xyz")),
        st.sampled_from(["1", "2", "3", "5", "10"]),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=tables, distance=st.sampled_from(DISTANCES), ordered=st.booleans())
# one class that is the whole table: its L2 distance is exactly 0, not the sum's rounding
@example(rows=[(("a", "y"), s) for s in "11123"], distance="l2", ordered=False)
def test_worst_class_and_closeness_match_brute_force(rows, distance, ordered):
    table = table_from_columns(
        {"a": [k[0] for k, _ in rows], "b": [k[1] for k, _ in rows]},
        [s for _, s in rows],
        ordered=ordered,
    )
    result = closeness(table, distance, top=len(rows))
    brute = _brute_classes(rows, distance, ordered)
    best = max(float(d) for d, _ in brute.values())
    assert result.classes == len(brute)
    assert result.closeness == pytest.approx(best, rel=1e-9, abs=1e-12)
    worst = result.worst[0]
    if distance in ("tv", "l1", "emd"):
        # computed in exact integer arithmetic: the worst class is an exact argmax, and exact
        # ties go to the class that appears first
        top = max(d for d, _ in brute.values())
        first = min(i for d, i in brute.values() if d == top)
        assert brute[worst.qi_values][0] == top
        assert worst.first_row == first  # ties broken by the earliest first row
    else:  # floating point: the worst class is an argmax up to rounding
        assert float(brute[worst.qi_values][0]) == pytest.approx(best, rel=1e-9, abs=1e-12)
    for w in result.worst:
        assert w.distance == pytest.approx(float(brute[w.qi_values][0]), rel=1e-9, abs=1e-12)
        if distance in ("tv", "l1", "emd"):  # the correctly rounded exact value
            assert w.distance == float(brute[w.qi_values][0])


def test_a_table_exactly_t_close_under_the_ordered_emd_is_t_close(tmp_path):
    """Float sums of CDFs put this EMD (exactly 1/4) at 0.2500000000000001, so the table
    failed at t = 0.25."""
    rows = [("0", "5"), ("1", "3"), ("1", "6"), ("0", "5"), ("1", "4"), ("0", "5"), ("1", "2")]
    table = table_from_columns({"q": [q for q, _ in rows]}, [v for _, v in rows], ordered=True)
    result = closeness(table, "emd", t=0.25)
    assert result.closeness == 0.25 and not result.violation


def test_li_2007_ordered_emd_known_answers():
    # Li, Li, Venkatasubramanian (2007), section 4.2 example: salaries 3k..11k, one each.
    q = [Fraction(1, 9)] * 9
    low = [Fraction(1, 3)] * 3 + [Fraction(0)] * 6
    spread = [0, 0, 0, Fraction(1, 3), 0, Fraction(1, 3), 0, 0, Fraction(1, 3)]  # 6k, 8k, 11k
    assert distribution_distance(low, q, "emd", ordered=True) == pytest.approx(0.375)
    assert distribution_distance(spread, q, "emd", ordered=True) == pytest.approx(1 / 6)
    table = table_from_columns(
        {"zip": ["A"] * 3 + ["B"] * 3 + ["C"] * 3}, [3, 4, 5, 6, 8, 11, 7, 9, 10], ordered=True
    )
    result = closeness(table, "emd", t=0.2)
    assert result.worst[0].qi_values == ("A",) and result.closeness == pytest.approx(0.375)
    assert result.verdict == "not t-close" and result.violating_classes == 2


def test_kl_with_an_empty_reference_bin_is_infinite_and_said_so():
    assert distribution_distance([0.5, 0.5], [1.0, 0.0], "kl") == math.inf
    table = table_from_columns({"g": list("aabb")}, ["x", "y", "x", "x"])
    result = closeness(table, "kl")
    assert math.isfinite(result.closeness) and result.infinite_classes == 0
    assert any("infinite" in note for note in result.notes)


def test_categorical_emd_equals_tv():
    table = table_from_columns({"g": list("aabbbc")}, list("xyxxzz"))
    tv, emd = closeness(table, "tv"), closeness(table, "emd")
    assert [w.distance for w in tv.worst] == [w.distance for w in emd.worst]


# ---------------------------------------------------------------------------------------------
# (n, t): exact reference sets against enumeration of every count vector
# ---------------------------------------------------------------------------------------------


@st.composite
def reference_problems(draw):
    m = draw(st.integers(1, 3))
    big = [draw(st.integers(1, 5)) for _ in range(m)]
    c = [draw(st.integers(0, b)) for b in big]
    if sum(c) == 0:
        c[0] = 1
    n = draw(st.integers(1, sum(big)))
    return c, big, n


@settings(max_examples=60, deadline=None)
@given(
    problem=reference_problems(),
    kind=st.sampled_from([("tv", False), ("l1", False), ("emd", True), ("emd", False)]),
)
def test_best_reference_set_is_optimal(problem, kind):
    c, big, n = problem
    distance, ordered = kind
    ref = best_reference_set(c, big, n, distance, ordered)
    p = [Fraction(ci, sum(c)) for ci in c]
    best = min(
        _brute_distance(p, [Fraction(xi, sum(x)) for xi in x], distance, ordered)
        for x in itertools.product(*[range(b + 1) for b in big])
        if sum(x) >= n
    )
    assert ref.size >= n
    assert ref.distance == pytest.approx(float(best), abs=1e-12)
    chosen = dict(ref.counts)
    assert all(0 <= chosen.get(str(i), 0) <= big[i] for i in range(len(big)))


def test_n_t_closeness_describes_the_chosen_set():
    table = table_from_columns({"g": ["a"] * 2 + ["b"] * 8}, ["hiv", "flu"] + ["flu"] * 8)
    result = closeness(table, "tv", t=0.3, n=5)
    worst = result.worst[0]
    assert worst.qi_values == ("a",)
    # the only hiv record plus 4 flu records: TV = 1/2 - 1/5 = 0.3
    assert dict(worst.reference.counts) == {"hiv": 1, "flu": 4}
    assert worst.distance == pytest.approx(0.3) and result.verdict == "(n,t)-close"
    assert result.to_dict()["worst"][0]["reference"]["size"] == 5


def test_reference_solver_rejects_unsupported_distances():
    table = table_from_columns({"g": list("ab")}, list("xy"))
    for distance in ("kl", "l2"):
        with pytest.raises(InputError, match="tv/l1/emd"):
            closeness(table, distance, n=1)


# ---------------------------------------------------------------------------------------------
# CSV loading
# ---------------------------------------------------------------------------------------------


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


SMALL = "age,zip,disease,income\n30,1,flu,3\n30,1,cancer,4\n40,2,flu,5\n\n40,2,flu,6\n50,1,hiv,11\n"


def test_csv_loader_agrees_with_in_memory_columns(tmp_path):
    table = load_table(_csv(tmp_path, SMALL), ["age"], "income", ordered=True)
    same = table_from_columns(
        {"age": [30, 30, 40, 40, 50]}, [3, 4, 5, 6, 11], "income", ordered=True
    )
    for distance in DISTANCES:
        a, b = closeness(table, distance), closeness(same, distance)
        assert a.closeness == b.closeness and a.worst[0].qi_values == b.worst[0].qi_values


def test_a_search_stopped_by_its_time_limit_gives_bounds_not_a_verdict(monkeypatch):
    import auditor.closeness.reference as mod

    # Pretend HiGHS ran out of time with a weak dual bound: the whole table stays the best set.
    monkeypatch.setattr(mod, "_continuous_start", lambda spec, n: (0.0, spec.big.copy()))
    monkeypatch.setattr(mod, "solve_step", lambda prog, spec, secs: (None, -1e9, 4))
    table = table_from_columns({"g": ["a"] * 2 + ["b"] * 8}, ["hiv", "flu"] + ["flu"] * 8)
    result = closeness(table, "tv", t=0.3, n=5)
    ref = result.worst[0].reference
    assert not ref.optimal and ref.bound == 0.0 and ref.distance == pytest.approx(0.4)
    assert result.verdict == "undetermined" and not result.violation
    assert result.unproved_classes == 1 and "time limit" in result.summary()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a,b", 'say "hi"', " x ", "", "é"]),
            st.sampled_from(["flu", "a,b", '"q"', ""]),
        ),
        min_size=1,
        max_size=15,
    )
)
def test_csv_quoting_round_trips(rows, tmp_path):
    import csv

    path = tmp_path / "quoted.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["qi", "s"])
        writer.writerows(rows)
    loaded = closeness(load_table(path, ["qi"], "s"), "tv", top=len(rows))
    direct = closeness(
        table_from_columns({"qi": [q for q, _ in rows]}, [v for _, v in rows]), "tv", top=len(rows)
    )
    assert [(w.qi_values, w.distance) for w in loaded.worst] == [
        (w.qi_values, w.distance) for w in direct.worst
    ]


# ---------------------------------------------------------------------------------------------
# The package's shape: public names, and no heavy import at module level
# ---------------------------------------------------------------------------------------------


def test_public_names():
    import auditor.closeness as pkg

    assert set(pkg.__all__) == {
        "DISTANCES",
        "EXACT_REFERENCE_DISTANCES",
        "SCHEMA_VERSION",
        "ClassDistance",
        "ClosenessResult",
        "ReferenceSet",
        "SensitiveTable",
        "best_reference_set",
        "closeness",
        "distribution_distance",
        "load_table",
        "shared_reference_set",
        "table_from_columns",
    }
    assert len(pkg.__all__) == 13
    assert all(hasattr(pkg, name) for name in pkg.__all__)


def test_scipy_sympy_matplotlib_are_imported_lazily():
    import ast
    from pathlib import Path

    import auditor.closeness as pkg

    heavy = {"scipy", "sympy", "matplotlib"}
    files = sorted(Path(pkg.__file__).parent.glob("*.py"))
    assert len(files) > 1
    for path in files:
        for node in ast.parse(path.read_text()).body:  # module-level statements only
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not {name.split(".")[0] for name in names} & heavy, (path.name, names)


def test_ordered_values_are_read_exactly(tmp_path):
    """Read as doubles, 2^53 and 2^53 + 1 were one value: closeness 0, t-close, where the two
    classes hold different values (closeness 1/2, as without --ordered)."""
    big = 2**53
    path = tmp_path / "big.csv"
    path.write_text(f"q,s\n1,{big}\n1,{big}\n2,{big + 1}\n2,{big + 1}\n")
    table = load_table(path, ["q"], "s", ordered=True)
    assert table.values == (str(big), str(big + 1))
    assert closeness(table, "emd", t=0.1).closeness == pytest.approx(0.5)
    mixed = table_from_columns({"q": list("aabbc")}, ["1", "1.0", "2e0", " 3", "1_0"], ordered=True)
    assert mixed.values == ("1", "2e0", " 3", "1_0")  # 1 = 1.0 < 2 < 3 < 10
    # what a double does not read stays refused; a huge exponent is read as the double
    with pytest.raises(InputError, match="'3/4'"):
        table_from_columns({"q": ["a"]}, ["3/4"], ordered=True)
    tiny = table_from_columns({"q": ["a", "a"]}, ["1e-10000000", "0"], ordered=True)
    assert len(tiny.values) == 1  # (as a double it is 0: seconds as an exact fraction)
