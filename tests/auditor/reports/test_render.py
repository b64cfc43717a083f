"""Reports open in headless Chromium: the page renders its verdict and its three plots.

Chromium is Debian's package (`.ci/run` installs it when absent); without it these tests skip.
"""

import shutil
import subprocess

import numpy as np
import pytest

from auditor import audit, catalogue
from auditor.reports.audit import write_audit_report
from auditor.reports.demo_audit import with_plots

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium(tmp_path, *args):
    profile = tmp_path / "profile"
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    entry = catalogue.get("noisy_hist2")
    mech = entry.sampler(0.1)
    result = audit(
        mech,
        [(p.a, p.b) for p in entry.pairs],
        epsilon=0.1,
        samples=100_000,
        seed=0,
        name="noisy_hist2 <script>alert(1)</script>",
    )
    d = with_plots(result, mech, samples=20_000)
    path = tmp / "report.html"
    write_audit_report(d, str(path))
    return path, d


def test_dom_has_verdict_plots_and_escaped_names(report, tmp_path):
    path, d = report
    dom = _chromium(tmp_path, "--dump-dom", path.as_uri()).stdout
    assert "Violation: with confidence 95%" in dom
    assert dom.count("<svg") >= 3  # outputs, privacy loss, trade-off curve
    assert "<script>alert(1)</script>" not in dom and "&lt;script&gt;" in dom
    assert f"{d['epsilon_lower_bound']:.6g}" in dom


def test_screenshot_shows_the_plots(report, tmp_path):
    import matplotlib.image as mpimg

    path, _ = report
    shot = tmp_path / "shot.png"
    _chromium(tmp_path, "--window-size=1100,2400", f"--screenshot={shot}", path.as_uri())
    pixels = mpimg.imread(shot)[:, :, :3]
    assert pixels.shape[0] >= 2000

    def share(rgb_hex: str, tol: float = 0.08) -> float:
        rgb = np.array([int(rgb_hex[i : i + 2], 16) / 255 for i in (0, 2, 4)])
        return float(np.mean(np.all(np.abs(pixels - rgb) < tol, axis=2)))

    assert share("1f5fa8") > 1e-4  # dataset A / eps_lb curves drawn
    assert share("c2410c") > 1e-4  # dataset B drawn
    assert share("b91c1c") > 1e-5  # the claimed-epsilon lines / the violation border
    assert np.mean(pixels < 0.9) > 0.02  # the page is not blank
