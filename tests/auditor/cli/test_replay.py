"""`auditor.replay` and `dpaudit replay`: the witness event is certified again on fresh
samples; the CLI's version, its "did you mean" and its inconclusive exit code."""

from __future__ import annotations

import json

import pytest

import auditor
from auditor.catalogue import get
from auditor.cli import main
from proofs import InputError
from proofs.io import SCHEMA_VERSION


@pytest.fixture(scope="module")
def broken_result():
    entry = get("noisy_hist2")
    return auditor.audit(
        entry.sampler(), entry.pairs, epsilon=0.1, samples=20_000, seed=4, name="noisy_hist2"
    )


def test_the_json_keeps_the_whole_event_and_replay_certifies_it_again(broken_result, tmp_path):
    d = broken_result.to_dict()
    assert d["witness"]["event_state"]["type"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    for source in (broken_result, d, str(path)):
        again = auditor.replay(source, samples=20_000)
        assert again.violation and again.epsilon_lower_bound > 1
        assert again.seed == 5  # the audit's seed + 1: fresh samples
    fixed = get("noisy_hist1")
    assert not auditor.replay(d, fixed.sampler(0.1), samples=20_000, confidence=0.999).violation


def test_cli_replay_exit_codes_and_target(broken_result, tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(broken_result.to_dict()))
    assert main(["replay", str(path), "--samples", "20000"]) == 1
    assert "replayed witness: VIOLATION" in capsys.readouterr().out
    out = tmp_path / "again.json"
    args = ["replay", str(path), "noisy_hist1", "--samples", "20000", "--confidence", "0.999"]
    assert main([*args, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["mechanism"] == "noisy_hist1"


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"witness": None, "claimed_epsilon": 0.1, "delta": 0, "confidence": 0.9}, "no witness"),
        ({"witness": {"pair": {"a": 0, "b": 1}}, "claimed_epsilon": 0.1}, "event_state"),
        ({"witness": {"event_state": {"type": "Nope"}}}, "malformed"),
        ({"schema_version": "9.0", "witness": None}, "schema_version='9.0'"),
        ({"witness": None}, "schema_version=None"),
    ],
)
def test_replay_bad_input_is_one_line(doc, message, tmp_path):
    doc = {"schema_version": SCHEMA_VERSION} | doc
    if message == "schema_version=None":
        doc.pop("schema_version")
    with pytest.raises(InputError, match=message) as err:
        auditor.replay(doc)
    assert "\n" not in str(err.value)
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    assert main(["replay", str(path)]) == 2


def test_replay_takes_the_confidences_an_audit_takes(broken_result):
    with pytest.raises(InputError, match=r"confidence=0.3 must be in \[0.5, 1\)"):
        auditor.replay(broken_result, confidence=0.3)


def test_version_did_you_mean_and_inconclusive_exit(capsys):
    with pytest.raises(SystemExit):  # argparse's own exit, as for --help
        raise SystemExit(main(["--version"]))
    assert capsys.readouterr().out.startswith("dpaudit ")
    assert main(["audit", "laplac", "--epsilon", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'laplace'" in err and len(err.strip().splitlines()) == 1
    assert main(["frob"]) == 2
    assert "see `dpaudit --help`" in capsys.readouterr().err
    code = main(["audit", "laplace_parallel20", "--epsilon", "0.1", "--samples", "2000"])
    assert code == 4 and "inconclusive" in capsys.readouterr().out


def test_a_catalogue_profile_audit_replays_the_mechanism_it_audited(tmp_path, capsys):
    """A profile audit builds a catalogue entry at its own claim; replay built it at the
    profile's point reading (another noise scale) and judged the point claim."""
    path = tmp_path / "g.json"
    args = ["audit", "gaussian", "--profile", "gdp:0.05", "--samples", "20000", "--seed", "2"]
    main([*args, "--semantics", "ideal", "--workers", "1", "--json", str(path)])
    d = json.loads(path.read_text())
    counts = d["witness"]["counts"]
    again = auditor.replay(d)
    assert again.profile == "gdp:0.05" and again.statistic == "mu"
    for audited, replayed in (
        (counts["numerator"], again.count_numerator),
        (counts["denominator"], again.count_denominator),
    ):  # the same event on the same mechanism: counts within sampling noise (sd < 100)
        assert abs(audited - replayed) < 600
    assert main(["replay", str(path)]) == (1 if again.violation else 0)
    assert "the profile gdp:0.05" in capsys.readouterr().out


def _rr(eps: float):
    """Randomized response at ``eps`` (a bit kept with probability e^eps / (1 + e^eps))."""
    import numpy as np

    keep = float(np.exp(eps) / (1 + np.exp(eps)))

    def mech(data, size, rng):
        return np.where(rng.random(size) < keep, int(data), 1 - int(data))

    return mech


def test_a_pure_claim_replays_with_the_joint_ratio_bound_as_the_audit_certified_it():

    from auditor.engine.stats import JOINT_SHARE, cp_lower, cp_upper, epsilon_bound, ratio_lower

    result = auditor.audit(_rr(1.3), [(0, 1)], epsilon=1.0, samples=40_000, seed=3)
    assert result.violation and result.witness.ratio is not None
    n = 30_000
    again = auditor.replay(result, _rr(1.3), samples=n, seed=11)
    r = again.ratio
    assert r is not None and again.violation
    # randomized response is its own mirror image: the audit pooled its event with the other
    # direction's, and so does the replay. On each dataset's prefix the two differences are
    # disjoint: their counts there add up to at most the prefix
    own, other = r["pooled"]["counts_event_only"], r["pooled"]["counts_partner_only"]
    assert [r["count_numerator"], r["count_denominator"]] == [own[0] + other[0], own[1] + other[1]]
    for k, here in (("numerator", own[0] + other[1]), ("denominator", own[1] + other[0])):
        # the prefixes: Poisson(n - 6 sqrt(n)), within n
        assert abs(r[f"samples_{k}"] - (n - 6 * n**0.5)) < 6 * n**0.5
        assert here <= min(r[f"samples_{k}"], n)
    a = (1 - again.confidence) / 2
    split = epsilon_bound(
        cp_lower(again.count_numerator, n, a * (1 - JOINT_SHARE)),
        cp_upper(again.count_denominator, n, a * (1 - JOINT_SHARE)),
        0.0,
    )
    joint = ratio_lower(
        r["count_numerator"], r["count_denominator"], (1 - again.confidence) * JOINT_SHARE
    )
    assert r["epsilon_lower_bound"] == pytest.approx(float(joint))
    assert again.epsilon_lower_bound == pytest.approx(max(float(split), float(joint), 0.0))
    assert float(joint) > float(split)  # a weak signal: the joint bound is the tighter one
    assert "ratio bound:" in again.summary() and again.to_dict()["ratio"] == r
    # the same seed gives the same replay; with delta > 0 there is no joint bound
    assert auditor.replay(result, _rr(1.3), samples=n, seed=11) == again
    approx = auditor.audit(_rr(1.3), [(0, 1)], epsilon=1.0, delta=1e-6, samples=40_000, seed=3)
    assert auditor.replay(approx, _rr(1.3), samples=n, seed=11).ratio is None


def test_replays_of_a_tight_pure_claim_flag_at_most_the_level():
    """Randomized response audited at its exact epsilon: each replay is an exact test at level
    1 - confidence (the joint and split bounds share it), so over 300 seeds the count of
    violations is Binomial(300, <= 0.05); more than 27 has probability below 0.001."""
    result = auditor.audit(_rr(1.0), [(0, 1)], epsilon=1.0, samples=20_000, seed=1)
    d = result.to_dict()
    flagged = sum(auditor.replay(d, _rr(1.0), samples=4_000, seed=s).violation for s in range(300))
    assert flagged <= 27, flagged


def _edited(d: dict, **witness) -> dict:
    return {**d, "witness": {**d["witness"], **witness}}


def test_a_damaged_result_is_one_line_bad_input_not_a_traceback(broken_result, tmp_path):
    """Hand-edited or truncated result files, field by field (found by fuzzing the JSON)."""
    d = broken_result.to_dict()
    state = d["witness"]["event_state"]
    damaged = [
        (5, "not an audit result"),
        (_edited(d, event_state=5), "not an event; replay an unedited file"),
        (_edited(d, event_state=[1, 2]), "not an event"),
        (_edited(d, pair=3), "pair 3 is malformed"),
        (_edited(d, counts=3), "counts 3 is malformed"),
        (_edited(d, numerator="z"), "numerator 'z'"),
        (
            {**d, "witness": {k: v for k, v in d["witness"].items() if k != "numerator"}},
            "numerator None",
        ),
        (_edited(d, pair={**d["witness"]["pair"], "a": float("nan")}), "NaN or infinity"),
        (_edited(d, event_state={**state, "lo": "x"}), "lo='x' is not float"),
        (_edited(d, event_state={**state, "hi": None}), "hi=None is not float"),
        (_edited(d, event_state={**state, "lo": [1]}), "lo=\\(1,\\) is not float"),
        (_edited(d, event_state={**state, "score": 2.5}), "score=2.5 is not Score"),
    ]
    for doc, message in damaged:
        with pytest.raises(InputError, match=message) as err:
            auditor.replay(doc, samples=2_000)
        assert "\n" not in str(err.value)
    with pytest.raises(InputError, match=r"the result's seed .* give the seed to replay with"):
        auditor.replay({**d, "seed": 2**600}, samples=2_000)
    with pytest.raises(InputError, match="confidence='x'"):
        auditor.replay(d, confidence="x")
    # a recorded seed that is no seed is an edited file (it was replayed with seed 0 silently)
    for bad in (-5, 1.5, "0"):
        with pytest.raises(InputError, match=f"seed {bad!r} is not an integer"):
            auditor.replay({**d, "seed": bad}, samples=2_000)
    assert auditor.replay({**d, "seed": -5}, samples=2_000, seed=0).seed == 0
    # an edited event_state was replayed under the saved description (the event printed was
    # not the event counted)
    spec = d["witness"]["event_spec"]
    ends = [k for k in ("lo", "hi") if isinstance(spec.get(k), float)]
    assert ends, spec  # (the fixture's witness is an interval with a finite end)
    for key in ends:
        edited = _edited(d, event_state={**state, key: spec[key] + 5.0})
        with pytest.raises(InputError, match=f"disagree \\({key}: "):
            auditor.replay(edited, samples=2_000)
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe")
    assert main(["replay", str(path)]) == 2
    path.write_text("[1, 2]")
    assert main(["replay", str(path)]) == 2


def test_an_edited_score_or_event_text_is_refused():
    """Only some spec fields were compared: weights set to 0, flipped or NaN were replayed and
    counted under the old description, and the readable event text was never checked."""
    entry = get("noisy_hist2")
    learned = auditor.audit(
        entry.sampler(), entry.pairs, epsilon=0.1, samples=20_000, seed=0, name="noisy_hist2"
    )
    d = learned.to_dict()
    state = d["witness"]["event_state"]
    assert state["score"].get("weights"), state  # (the fixture's witness is a learned score)
    weights = state["score"]["weights"]
    for new in ([0.0] * len(weights), [-weights[0], *weights[1:]]):
        edited = _edited(d, event_state={**state, "score": {**state["score"], "weights": new}})
        with pytest.raises(InputError, match="disagree \\(description: "):
            auditor.replay(edited, samples=2_000)
    with pytest.raises(InputError, match="is not the event its event_state holds"):
        auditor.replay(_edited(d, event="y > 1000"), samples=2_000)


def test_huge_integers_in_a_result_are_bad_input(broken_result, tmp_path):
    """A 401-digit integer was an OverflowError (exit 3) where a float was taken of it."""
    text = json.dumps(broken_result.to_dict())
    for key in ("claimed_epsilon", "epsilon_lower_bound"):
        doc = json.loads(text)
        doc[key] = 0
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(doc).replace(f'"{key}": 0', f'"{key}": {"9" * 401}'))
        assert main(["replay", str(path), "--samples", "2000"]) == 2
    # (an infinite claimed epsilon is one a report shows; an infinite certified bound is not)
    assert main(["report", str(path), "--report", str(tmp_path / "r.html")]) == 2


def test_a_witness_replayed_on_outputs_of_another_shape_is_refused(tmp_path):
    """A scalar event on a 2-vector output was applied to each coordinate and the hits added:
    counts beyond the samples, and false violations on a correct mechanism."""
    import numpy as np

    def laplace(data, size, rng):
        return float(data) + rng.laplace(0.0, 1.0, size)

    def twice(data, size, rng):
        x = float(data) + rng.laplace(0.0, 1.0, size)
        return np.stack([x, x], axis=1)

    result = auditor.audit(laplace, [(0, 1)], epsilon=0.5, samples=20_000, seed=1)
    assert result.witness is not None
    with pytest.raises(InputError, match="another shape"):
        auditor.replay(result, twice, samples=2_000)


def test_a_long_seed_survives_the_json_round_trip(tmp_path):
    """Integers past 300 digits are read as floats (an edited 401-digit number overflowed);
    a seed of 31 digits stays an exact integer, and the replay takes the next one."""

    def rr(data, size, rng):
        import numpy as np

        return np.where(rng.random(size) < 0.7, int(data), 1 - int(data))

    result = auditor.audit(rr, [(0, 1)], epsilon=0.5, samples=5_000, seed=2**100)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result.to_dict()))
    assert auditor.replay(str(path), rr, samples=2_000).seed == 2**100 + 1


def test_a_huge_sample_count_is_named_by_its_size(capsys):
    assert main(["audit", "rr.k_ary", "--epsilon", "1", "--samples", "1e300"]) == 2
    err = capsys.readouterr().err
    assert "samples=1e+300 must be" in err and len(err) < 200
