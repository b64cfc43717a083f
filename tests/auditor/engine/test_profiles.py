"""Profile claims (auditor.engine.claims): the certified statistics are sound and monotone,
a correct Gaussian is not flagged, a Gaussian with half the noise is, and bad profiles are
one-line input errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from auditor import audit
from auditor.engine.claims import (
    GaussianDP,
    PointClaim,
    ProfileTable,
    RenyiProfile,
    as_profile,
    parse_profile,
)
from proofs.errors import InputError


def gaussian(sigma: float):
    def release(data, size, rng):
        return float(np.sum(data)) + sigma * rng.standard_normal(size)

    return release


def laplace(scale: float):
    def release(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, scale, size)

    return release


T = np.linspace(-6, 8, 400)


def _gauss_events(mu: float) -> tuple[np.ndarray, np.ndarray]:
    """P[N(mu, 1) > t] and P[N(0, 1) > t] for many thresholds: the Gaussian's exact curve."""
    return stats.norm.sf(T - mu), stats.norm.sf(T)


def _gauss_table(mu: float) -> ProfileTable:
    eps = np.linspace(0, 12, 600)
    g = GaussianDP(mu)
    return ProfileTable(tuple(eps), tuple(g.delta_at(e) for e in eps))


PROFILES = {
    "gdp": lambda mu: GaussianDP(mu),
    "zcdp": lambda mu: parse_profile(f"zcdp:{mu * mu / 2}"),
    "table": _gauss_table,
}


@pytest.mark.parametrize("kind", sorted(PROFILES))
@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_meets_its_own_profile(kind, mu):
    """At the Gaussian's exact event probabilities no statistic exceeds its threshold, in
    either direction; the mu-GDP statistic is exactly mu on every threshold event."""
    claim = PROFILES[kind](mu)
    p, q = _gauss_events(mu)
    # the other direction: the complements, with the datasets swapped
    for num, den in ((p, q), (stats.norm.cdf(T), stats.norm.cdf(T - mu))):
        inside = (num > 1e-9) & (num < 1 - 1e-9) & (den > 1e-9) & (den < 1 - 1e-9)
        s = claim.statistic(num[inside], den[inside])
        assert np.all(s <= claim.threshold + 1e-7)
    if kind == "gdp":
        mid = (p > 1e-6) & (q < 1 - 1e-6) & (q > 1e-9)
        assert np.allclose(claim.statistic(p[mid], q[mid]), mu, atol=1e-6)


@pytest.mark.parametrize("kind", sorted(PROFILES))
def test_twice_the_mu_violates(kind):
    """The Gaussian with twice the mu violates the profile at its exact probabilities."""
    claim = PROFILES[kind](1.0)
    p, q = _gauss_events(2.0)
    assert np.max(claim.statistic(p, q)) > claim.threshold + 0.05


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    kind=st.sampled_from(["point", "gdp", "zcdp", "table"]),
    lo=st.floats(0, 1),
    hi=st.floats(0, 1),
    up=st.floats(0, 1),
)
def test_statistics_are_monotone(kind, lo, hi, up):
    """Non-decreasing in the numerator's lower bound, non-increasing in the denominator's
    upper bound: the property the soundness argument needs."""
    claim = PointClaim(0.5, 1e-5) if kind == "point" else PROFILES[kind](1.0)
    lo2 = lo + (1 - lo) * up
    hi2 = hi * (1 - up)
    base = float(claim.statistic(lo, hi))
    assert float(claim.statistic(lo2, hi)) >= base - 1e-9
    assert float(claim.statistic(lo, hi2)) >= base - 1e-9


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_tradeoff_curves_are_below_the_gaussians(mu):
    """A zCDP or table reading of the Gaussian's profile is a lower bound on its exact curve
    (read conservatively), and close to it where the claim is informative."""
    alpha = np.linspace(0.001, 0.999, 199)
    exact = GaussianDP(mu).tradeoff(alpha)
    for claim in (PROFILES["zcdp"](mu), PROFILES["table"](mu)):
        f = claim.tradeoff(alpha)
        assert np.all(f <= exact + 1e-9)
        assert np.all(f >= 0)
    assert np.max(exact - PROFILES["table"](mu).tradeoff(alpha)) < 0.02


def test_readings_at_a_delta():
    """The (eps, delta) reading of mu = 1: 4.3772 at 1e-5 (the analytic Gaussian's)."""
    assert GaussianDP(1.0, delta=1e-5).epsilon == pytest.approx(4.377178, abs=1e-5)
    z = parse_profile("zcdp:0.5")  # rho = mu^2 / 2: looser than GDP, as zCDP is
    assert 4.377 < z.epsilon < 5.0
    assert _gauss_table(1.0).epsilon == pytest.approx(4.38, abs=0.03)


@pytest.mark.parametrize("rho", [1e-6, 1e-3, 1e3])
def test_a_zcdp_claim_is_read_at_its_best_orders(rho):
    """Orders stopped at 256: zcdp:1e-6 was read as (0.0198, 1e-5)-DP where it says 0.0035
    (the Gaussian of the same rho is 0.0029), so leaks up to 5x went unflagged. The reading
    stays a valid one: never below the Gaussian's exact curve's."""
    mu = math.sqrt(2 * rho)
    exact = GaussianDP(mu, delta=1e-5).epsilon
    z = parse_profile(f"zcdp:{rho}")
    assert exact <= z.epsilon < 1.25 * exact
    alpha = np.linspace(1e-4, 1 - 1e-4, 999)
    assert np.all(z.tradeoff(alpha) <= GaussianDP(mu).tradeoff(alpha) + 1e-9)


def test_half_the_noise_is_caught_at_1e4():
    r = audit(
        gaussian(0.5), [(0, 1)], profile="gaussian:1", samples=10_000, seed=3, semantics="ideal"
    )
    assert r.verdict == "violation"
    assert r.profile["mu_lower_bound"] > 1.0
    pt = r.profile["points"][r.profile["most_violated"]]
    assert pt["violates"] and pt["beta"] < pt["claimed_beta"]
    # the point claim at the same profile's (eps, 1e-5) misses it at this sample size
    point = audit(
        gaussian(0.5),
        [(0, 1)],
        epsilon=GaussianDP(1.0).epsilon,
        delta=1e-5,
        samples=10_000,
        seed=3,
        semantics="ideal",
    )
    assert point.verdict != "violation"


@pytest.mark.parametrize("spec", ["gaussian:1", "gdp:1", "zcdp:0.5"])
def test_correct_gaussian_is_not_flagged(spec):
    r = audit(gaussian(1.0), [(0, 1)], profile=spec, samples=20_000, seed=1, semantics="ideal")
    assert r.verdict == "no violation found"
    assert r.profile["mu_lower_bound"] <= 1.0


def test_false_alarms_at_the_exact_profile():
    """60 seeded audits of a Gaussian against its exact GDP curve at confidence 0.9: every
    threshold event sits on the claimed curve, so a flag is a failed bound (expected <= 6;
    P[Binomial(60, 0.1) >= 16] < 1e-4)."""
    flags = sum(
        audit(
            gaussian(1.0),
            [(0, 1)],
            profile="gdp:1",
            samples=2_000,
            seed=s,
            confidence=0.9,
            semantics="ideal",
        ).violation
        for s in range(60)
    )
    assert flags < 16


def test_mu_lower_bound_is_close_at_2e5():
    r = audit(gaussian(1.0), [(0, 1)], profile="gdp:1", samples=200_000, seed=2, semantics="ideal")
    assert 0.9 <= r.profile["mu_lower_bound"] <= 1.0


def test_laplace_against_its_pld():
    """dp_accounting objects as profiles: a Laplace event is met by the Laplace mechanism
    and violated by one with a third of its noise."""
    dp_accounting = pytest.importorskip("dp_accounting")
    event = dp_accounting.LaplaceDpEvent(1.0)
    prof = as_profile(event)
    assert isinstance(prof, ProfileTable)
    ok = audit(laplace(1.0), [(0, 1)], profile=event, samples=20_000, seed=4, semantics="ideal")
    assert ok.verdict == "no violation found"
    bad = audit(laplace(1 / 3), [(0, 1)], profile=event, samples=20_000, seed=4, semantics="ideal")
    assert bad.verdict == "violation"
    g = as_profile(dp_accounting.GaussianDpEvent(2.0))
    assert isinstance(g, GaussianDP) and g.mu == 0.5


def test_profile_files(tmp_path):
    rdp = tmp_path / "rdp.json"
    orders = [1.5, 2, 4, 8, 16, 32]
    rdp.write_text(json.dumps({"orders": orders, "rdp": [a / 2 for a in orders]}))
    prof = parse_profile(f"rdp:{rdp}")
    assert isinstance(prof, RenyiProfile) and prof.values == tuple(a / 2 for a in orders)
    table = tmp_path / "pld.json"
    eps = np.linspace(0, 8, 200)
    table.write_text(
        json.dumps({"epsilons": eps.tolist(), "deltas": [GaussianDP(1).delta_at(e) for e in eps]})
    )
    for spec in (f"rdp:{rdp}", f"pld:{table}"):
        r = audit(gaussian(0.5), [(0, 1)], profile=spec, samples=10_000, seed=5, semantics="ideal")
        assert r.verdict == "violation", spec


BAD = [
    ("gauss:1", "profile kind 'gauss' is unknown"),
    ("gdp", "must be KIND:PARAMS"),
    ("gdp:0", "mu='0' must be a number > 0"),
    ("gaussian:-2", "sigma='-2' must be a number > 0"),
    ("gaussian:nan", "sigma='nan'"),
    ("zcdp:inf", "rho='inf'"),
    ("rdp:/no/such.json", "does not exist"),
]


@pytest.mark.parametrize(("spec", "words"), BAD)
def test_bad_profiles_are_input_errors(spec, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        parse_profile(spec)


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[1, 2]",
        '{"orders": [1, 2], "rdp": [0.1, 0.2]}',
        '{"orders": [2, 3], "rdp": [0.1]}',
        '{"orders": [2], "rdp": ["x"]}',
        '{"orders": [2], "rdp": [true]}',  # (was read as 1.0)
        '{"orders": [2], "rdp": ["0.5"]}',  # (was read as 0.5)
        '{"epsilons": [0, 1], "deltas": [0.5, 2]}',
        '{"epsilons": [0, 1], "deltas": [0.5, 0.1]}',
    ],
)
def test_malformed_profile_files(tmp_path, content):
    path = tmp_path / "p.json"
    path.write_text(content)
    kind = "pld" if "epsilons" in content else "rdp"
    with pytest.raises(InputError) as err:
        parse_profile(f"{kind}:{path}")
    message = str(err.value)
    assert "\n" not in message and message.startswith("profile")


def test_epsilon_xor_profile():
    with pytest.raises(InputError, match="not both"):
        audit(gaussian(1), [(0, 1)], epsilon=1.0, profile="gdp:1", samples=1000)
    with pytest.raises(InputError, match="neither"):
        audit(gaussian(1), [(0, 1)], samples=1000)
    with pytest.raises(InputError, match="profile=1"):
        audit(gaussian(1), [(0, 1)], profile=1, samples=1000)


def test_gdp_statistic_is_exact_probit_gap():
    g = GaussianDP(1.0)
    assert float(g.statistic(0.5, special.ndtr(-1.0))) == pytest.approx(1.0)
    assert float(g.statistic(0.0, 0.1)) == -math.inf
    assert float(g.statistic(0.3, 0.0)) == math.inf


def test_cli_profile_audit_writes_json_and_report(tmp_path, capsys):
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    from auditor.cli import main

    mech = tmp_path / "mech.py"
    mech.write_text(
        "import numpy as np\n"
        "def half(data, size, rng):\n"
        "    return float(np.sum(data)) + 0.5 * rng.standard_normal(size)\n"
    )
    out, report = tmp_path / "r.json", tmp_path / "r.html"
    argv = ["audit", f"{mech}:half", "--profile", "gaussian:1", "--pair", "0", "1"]
    argv += ["--samples", "10000", "--semantics", "ideal", "--json", str(out)]
    assert main([*argv, "--report", str(report)]) == 1
    assert "VIOLATION of the profile gaussian:1" in capsys.readouterr().out
    d = json.loads(out.read_text())
    schema = json.loads(
        resources.files("auditor").joinpath("schemas/audit.schema.json").read_text()
    )
    jsonschema.validate(d, schema)
    assert d["profile"]["kind"] == "gdp" and d["profile"]["claimed_mu"] == 1.0
    html = report.read_text()
    assert "certified GDP mu lower bound" in html and "certified point violating" in html


def test_a_profile_violation_replays_as_one_against_the_profile():
    """Replay judged a profile audit by its point reading at the reference delta (and built a
    catalogue target at that reading): a profile violation never replayed."""
    from auditor import replay

    r = audit(
        gaussian(0.5), [(0, 1)], profile="gaussian:1", samples=10_000, seed=3, semantics="ideal"
    )
    again = replay(r.to_dict(), gaussian(0.5))
    assert r.violation and again.violation
    assert again.statistic == "mu" and again.threshold == pytest.approx(1.0)
    assert again.certified > 1.0 and "gaussian:1" in again.summary()
    # the same witness on the mechanism the profile describes is no violation
    assert not replay(r.to_dict(), gaussian(1.0), samples=20_000).violation


def test_an_audit_that_detects_nothing_is_inconclusive_under_any_profile():
    """On an event where the claimed curve is 0 a profile reads as mu = inf, so the limit was
    infinite and a detectable mu of inf passed as 'no violation found'."""
    from auditor.engine.config import AuditConfig
    from auditor.engine.run import _verdict

    table = ProfileTable((0.0, 1.0, 2.0), (0.5, 0.2, 0.05))
    judge = table.detection(0.999)  # the claimed curve is 0 there
    assert math.isinf(judge.scale)
    cfg = AuditConfig(epsilon=1.0, samples=2000)
    assert _verdict(False, math.inf, judge, cfg, True)[0] == "inconclusive"
    assert _verdict(False, 1.0, table.detection(0.3), cfg, True)[0] == "no violation found"


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.floats(0, 1), st.floats(1e-9, 1), st.floats(0.05, 3))
def test_a_tables_probit_margin_has_the_sign_of_its_plain_margin(lo, hi, mu):
    table = _gauss_table(mu)
    plain = float(table.tradeoff(np.array([hi]))[0]) - (1 - lo)
    probit = float(table.statistic(lo, hi)[()])
    if abs(plain) > 1e-9:  # (1 - lo rounds away a tiny lo: the plain margin is the coarser)
        assert (probit > 0) == (plain > 0)


def _rr_profile_file(tmp_path, eps0: float) -> str:
    """Binary randomized response's exact profile delta(e) = (e^eps0 - e^e) / (1 + e^eps0)."""
    es = [eps0 * i / 10 for i in range(11)]
    ds = [max(0.0, (math.exp(eps0) - math.exp(e)) / (1 + math.exp(eps0))) for e in es]
    path = tmp_path / "rr.json"
    path.write_text(json.dumps({"epsilons": es, "deltas": ds}))
    return f"pld:{path}"


def test_randomized_response_at_its_exact_profile_is_judged_on_an_informative_event(tmp_path):
    """On the plain margin an empty event (margin about 0) outranked every informative one
    (negative margins): 8 of 10 seeds certified it and came out inconclusive."""
    spec = _rr_profile_file(tmp_path, 1.0)

    def rr(eps):
        p = math.exp(eps) / (1 + math.exp(eps))
        return lambda data, size, rng: np.where(rng.random(size) < p, data, 1 - data)

    for seed in range(3):
        r = audit(rr(1.0), [(0, 1)], profile=spec, samples=100_000, seed=seed, workers=1)
        assert r.verdict == "no violation found" and r.profile["mu_lower_bound"] > 1.1
        assert audit(rr(2.0), [(0, 1)], profile=spec, samples=100_000, seed=seed).violation


def test_a_profile_file_named_relatively_is_found_by_a_replay_from_another_folder(
    tmp_path, monkeypatch
):
    """The result kept only 'rdp:rdp.json': a replay run elsewhere could not rebuild the claim
    (and the command line cannot pass a profile again). It now records the file's path."""
    from auditor import replay

    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir(), elsewhere.mkdir()
    orders = [1.5, 2, 4, 8, 16, 32]
    (work / "rdp.json").write_text(json.dumps({"orders": orders, "rdp": [a / 8 for a in orders]}))
    monkeypatch.chdir(work)
    r = audit(gaussian(0.5), [(0, 1)], profile="rdp:rdp.json", samples=10_000, seed=5)
    saved = r.to_dict()
    assert saved["profile"]["claim"] == "rdp:rdp.json"
    assert saved["profile"]["source"] == str((work / "rdp.json").resolve())
    monkeypatch.chdir(elsewhere)
    again = replay(saved, gaussian(0.5), samples=10_000)
    assert again.violation and r.verdict == "violation" and again.profile == "rdp:rdp.json"
    (work / "rdp.json").unlink()  # gone: a one-line error, as before
    with pytest.raises(InputError, match="cannot be rebuilt"):
        replay(saved, gaussian(0.5), samples=10_000)


@pytest.mark.parametrize(
    "profile",
    [RenyiProfile((1.01,), (0.5,)), ProfileTable((0.0, 720.0), (0.5, 0.0))],
    ids=["renyi-order-1.01", "table-to-720"],
)
def test_a_profile_read_past_a_doubles_exp_is_audited(profile):
    """Read at delta 1e-5, Renyi order 1.01 gives epsilon ~1146 and the table 720: e^epsilon
    overflowed and the audit ended in an OverflowError (exit 3 on the command line)."""
    r = audit(gaussian(1.0), [([0, 1], [0])], profile=profile, samples=10_000, seed=1, workers=1)
    assert r.claimed_epsilon > 709 and r.delta_lower_bound == 0.0
    assert r.verdict in ("violation", "no violation found", "inconclusive")
    json.dumps(r.to_dict(), allow_nan=False)


def test_an_inconclusive_hint_tells_events_that_separate_from_events_that_do_not():
    """An event where the profile's curve is 0 separates the datasets but no mechanism can be
    caught on it: the hint said 'no event told the datasets apart' (an RR with a revealing
    output at its exact table, 5 seeds in 40)."""
    from auditor.engine.config import AuditConfig
    from auditor.engine.run import _verdict

    cfg = AuditConfig(epsilon=1.0)
    judge = PointClaim(1.0, 0.0).detection(0.5)
    verdict, hint = _verdict(False, math.inf, judge, cfg, True, True)
    assert verdict == "inconclusive" and "tell the datasets apart, but only where" in hint
    verdict, hint = _verdict(False, math.inf, judge, cfg, True, False)
    assert "no event told the datasets apart" in hint
    assert "samples=" in hint and "--samples" in hint  # both the flag and the keyword


def test_a_profile_other_than_gdp_says_its_mu_is_a_summary():
    """A zCDP claim's summary spoke of GDP mu with no word that its own curve decides: a mu
    above a GDP equivalent then read as a missed violation."""

    def gaussian(data, size, rng):
        return float(data) + rng.normal(0.0, 2.0, size)

    result = audit(gaussian, [(0, 1)], profile="zcdp:0.125", samples=20_000, seed=1)
    assert "(a summary: the claim's own curve" in result.summary()
    gdp = audit(gaussian, [(0, 1)], profile="gdp:0.5", samples=20_000, seed=1)
    assert "(claimed mu 0.5)" in gdp.summary() and "a summary" not in gdp.summary()
