"""Mechanisms whose randomness restarts in every new process (a generator seeded when their
module is imported): a resumed audit would redraw the noise it chose its events on, and a pool's
workers would share noise, so resuming is refused and the pool is not used. A checkpoint also
knows the mechanism's source: an edited module is not resumed."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

from auditor import audit
from auditor.engine import progress
from auditor.engine.adapter import as_mechanism, pickled_by_reference, processes_repeat
from proofs import InputError

SOURCE = """
import numpy as np

SCALE = {scale}
_calls = [0]


def restarting(data, size):
    # noise fixed by a counter that starts again whenever the module is imported
    _calls[0] += 1
    g = np.random.default_rng([12345, _calls[0]])
    return np.round(data + g.laplace(0, SCALE, size), 1)


def seeded(data, size, rng):
    return np.round(data + rng.laplace(0, SCALE, size), 1)


def mixed(data, size, rng):
    # half its noise from the stream it is given, half from the restarting counter
    _calls[0] += 1
    g = np.random.default_rng([54321, _calls[0]])
    return np.round(data + rng.laplace(0, SCALE, size) + g.laplace(0, SCALE, size), 1)


def one_sided(data, size, rng):
    # the stream on dataset 0, the restarting counter on the other
    return seeded(data, size, rng) if data == 0 else restarting(data, size)
"""


@pytest.fixture()
def module(tmp_path, monkeypatch):
    """A module importable here and in new processes (PYTHONPATH), reloaded per test."""
    path = tmp_path / "fresh_state_mech.py"
    path.write_text(SOURCE.format(scale=1.0))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{':'.join(sys.path)}")
    sys.modules.pop("fresh_state_mech", None)
    mod = importlib.import_module("fresh_state_mech")
    yield mod
    sys.modules.pop("fresh_state_mech", None)


def test_new_processes_repeat_a_restarting_mechanism_only(module):
    restarting, seeded = as_mechanism(module.restarting), as_mechanism(module.seeded)
    assert pickled_by_reference(module.restarting) and not pickled_by_reference(lambda d: d)
    assert processes_repeat(restarting, 0.0, 1)
    assert not processes_repeat(seeded, 0.0, 1)
    # its outputs vary with the stream, and part of their noise still restarts
    assert processes_repeat(as_mechanism(module.mixed), 0.0, 1)
    # the state serves one dataset only: the checks take both of the first pair in turn
    one_sided = as_mechanism(module.one_sided)
    assert processes_repeat(one_sided, 0.0, 1, other=1.0)
    assert not processes_repeat(one_sided, 0.0, 1)


def test_a_mechanism_decided_by_its_stream_starts_no_process(module, monkeypatch):
    from loky import ProcessPoolExecutor

    started = []
    monkeypatch.setattr(ProcessPoolExecutor, "__init__", lambda *a, **k: started.append(1) / 0)
    assert not processes_repeat(as_mechanism(module.seeded), 0.0, 1) and not started
    assert not processes_repeat(as_mechanism(lambda d, size: np.random.laplace(d, 1, size)), 0, 1)
    assert not started


def _interrupted(monkeypatch, func, ck, kw):
    calls = {"n": 0}
    real = progress.Progress.update

    def update(self, k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        real(self, k)

    monkeypatch.setattr(progress.Progress, "update", update)
    with pytest.raises(KeyboardInterrupt):
        audit(func, [(0, 1)], checkpoint=ck, **kw)
    monkeypatch.setattr(progress.Progress, "update", real)


KW = dict(epsilon=1.0, samples=200_000, seed=3, workers=1)


def test_a_restarting_mechanism_is_not_resumed(module, tmp_path, monkeypatch):
    for func in (module.restarting, module.mixed, module.one_sided):
        ck = tmp_path / f"{func.__name__}.ckpt"
        _interrupted(monkeypatch, func, ck, KW)
        with pytest.raises(InputError, match="cannot be resumed") as info:
            audit(func, [(0, 1)], checkpoint=ck, **KW)
        assert "\n" not in str(info.value)
    ok = tmp_path / "s.ckpt"
    _interrupted(monkeypatch, module.seeded, ok, KW)
    resumed = audit(module.seeded, [(0, 1)], checkpoint=ok, **KW)
    assert resumed.to_dict()["witness"] == audit(module.seeded, [(0, 1)], **KW).to_dict()["witness"]


def test_an_edited_module_does_not_resume_its_checkpoint(module, tmp_path, monkeypatch):
    ck = tmp_path / "e.ckpt"
    _interrupted(monkeypatch, module.seeded, ck, KW)
    (tmp_path / "fresh_state_mech.py").write_text(SOURCE.format(scale=0.5))
    edited = importlib.reload(module)
    with pytest.raises(InputError, match="belongs to another audit \\(mechanism="):
        audit(edited.seeded, [(0, 1)], checkpoint=ck, **KW)


def test_a_pool_is_not_used_for_a_restarting_mechanism(module, monkeypatch):
    import functools

    from auditor.engine import executors

    monkeypatch.setattr(executors, "INLINE_SECONDS", 0.0)
    executors.local_pool(2, reuse=False)  # workers that see PYTHONPATH
    kw = dict(epsilon=1.0, samples=20_000, seed=3, workers=2)
    repeat = "copies of the mechanism repeat"
    # sent by name, or wrapped (a partial is sent by value, the module it names by name)
    for func in (module.restarting, functools.partial(module.restarting), module.mixed):
        assert any(repeat in n for n in audit(func, [(0, 1)], **kw).notes)
    assert not any(repeat in n for n in audit(module.seeded, [(0, 1)], **kw).notes)


def test_a_refused_checkpoint_shows_where_long_settings_differ_and_why_looks_do(tmp_path):
    from auditor.engine.checkpoint import _describe

    a = {"profile": "RenyiProfile(orders=(1.5, 2, 3, 4, 5, 6, 8, 16, 32, 64), values=(0.1, 0.2))"}
    b = {"profile": "RenyiProfile(orders=(1.5, 2, 3, 4, 5, 6, 8, 16, 32, 64), values=(0.1, 0.3))"}
    shown_a, shown_b = _describe(a, b, "profile"), _describe(b, a, "profile")
    assert shown_a != shown_b and "0.2" in shown_a and "0.3" in shown_b
    ck = tmp_path / "t.ckpt"
    kw = dict(epsilon=1.0, samples=20_000, seed=2, workers=1, early_stop=False)
    coin = lambda d, size, rng: rng.random(size) < 0.5
    audit(coin, [(0, 1)], checkpoint=ck, max_time=1e6, **kw)
    with pytest.raises(InputError, match=r"looks=.*give the --max-time the saved run had"):
        audit(coin, [(0, 1)], checkpoint=ck, **kw)
