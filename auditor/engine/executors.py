"""Where samples are drawn: fixed-size chunks run on an executor, results taken in chunk order.

Every sample the audit draws belongs to a *chunk*: a stream (phase, pair, dataset) and an
index in it. The chunk's generator is seeded from ``SeedSequence(seed).spawn`` keys alone, and
chunk sizes depend only on the audit's settings, so what a chunk returns does not depend on who
runs it: this process, a local process pool or a Dask cluster. Results are consumed in chunk
order, so the counts, the looks at them and the result are the same for 1 worker, many, or a
resumed run.

Executors: ``"local"`` is a process pool (loky, which pickles closures and lambdas with
cloudpickle) on ``workers`` processes, by default every core this process may use; ``"dask"``
is ``distributed.Client(scheduler).get_executor()`` (no scheduler: a ``LocalCluster`` of
``workers`` single-threaded processes, for the one audit); any
``concurrent.futures.Executor`` object is used as given. One worker, or an audit whose probe
says it takes under a second, runs in this process: no pool start-up, the same chunks and the
same result.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import sys
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Executor, Future, InvalidStateError
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from auditor.engine.adapter import Mechanism, draw, kind_of
from proofs.errors import InputError

__all__ = [
    "EXECUTORS",
    "CountTally",
    "Runner",
    "Tally",
    "chunk_rng",
    "count_events",
    "default_workers",
    "local_pool",
    "open_runner",
    "run_chunk",
    "stop_pools",
]

EXECUTORS = ("local", "dask")
INLINE_SECONDS = 1.0  # below this projected serial time a pool costs more than it saves
SCHEDULER_TIMEOUT = 4  # seconds to reach a Dask scheduler before giving up
MAX_WORKERS = 1024  # local processes: beyond this, a typo (a pool of 100,000 would be started)


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def chunk_rng(entropy: int, stream: tuple[int, ...], index: int) -> np.random.Generator:
    """The generator of chunk ``index`` of ``stream``: the ``index``-th child spawned from the
    stream's SeedSequence, built directly so any chunk can be drawn alone (resume, workers)."""
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(*stream, index)))


def count_events(
    events: Iterable[Any], y: np.ndarray, tables: dict[Any, tuple] | None = None
) -> np.ndarray:
    """How many rows of ``y`` each event contains (hash keys computed and tallied once per key
    function, scores once per score: a pair's candidates share them). ``tables``: key
    functions' (distinct values, counts) on ``y`` already computed."""
    from auditor.engine.events import Difference, KeySet, ScoreInterval, matched

    keys: dict[Any, tuple[np.ndarray, np.ndarray]] = dict(tables or {})
    scores: dict[Any, np.ndarray] = {}
    rows: dict[Any, np.ndarray] = {}

    def per_row(v: Any) -> np.ndarray:
        """``v`` as one value per output row: a witness replayed on outputs of another shape
        (a scalar event on vectors) gave one per coordinate, and counted them all."""
        v = np.asarray(v)
        if v.shape != (len(y),):
            raise ValueError(
                f"the event gives values of shape {v.shape} on {len(y)} outputs of shape "
                f"{np.shape(y)[1:] or 'scalar'}: the outputs have another shape than the "
                "event was chosen on"
            )
        return v

    def contains(ev: Any) -> np.ndarray:  # (a difference's parts share the caches)
        if isinstance(ev, ScoreInterval):
            v = scores.get(ev.score)
            if v is None:
                v = scores[ev.score] = per_row(ev.score(y))
            return (v > ev.lo) & (v <= ev.hi)
        if isinstance(ev, KeySet):
            k, values = matched(keyed(ev.key), ev.keys)
            return np.isin(k, values)
        return per_row(ev.contains(y))

    def keyed(key: Any) -> np.ndarray:
        if key not in rows:
            rows[key] = per_row(key(y))
        return rows[key]

    events = list(events)
    # a key's row values are held for the call only when a difference may need them again
    pooled = any(isinstance(ev, Difference) for ev in events)
    out = []
    for ev in events:
        if isinstance(ev, Difference):
            out.append(np.count_nonzero(contains(ev.keep) & ~contains(ev.drop)))
        elif isinstance(ev, KeySet):  # the key's distinct values and counts, once per key
            table = keys.get(ev.key)
            if table is None:
                y_keys = keyed(ev.key) if pooled else per_row(ev.key(y))
                table = keys[ev.key] = np.unique(y_keys, return_counts=True)
            u, values = matched(table[0], ev.keys)
            c, values = table[1], np.unique(values)
            at = np.minimum(np.searchsorted(u, values), max(u.size - 1, 0))
            hit = u[at] == values if u.size else np.zeros(values.size, dtype=bool)
            out.append(int(c[at[hit]].sum()))
        else:
            out.append(np.count_nonzero(contains(ev)))
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True, slots=True)
class Task:
    """One chunk: draw ``size`` outputs on dataset number ``which`` and keep or count them.
    ``cuts``: row offsets at which event counts are also wanted (of the rows before each)."""

    which: int
    entropy: int
    stream: tuple[int, ...]
    index: int
    size: int
    cuts: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Tally:
    """Ask a chunk for the distinct values of each key function and their counts."""

    keys: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class CountTally:
    """Ask a chunk for the count of each event and the tally of each key function."""

    events: tuple[Any, ...]
    keys: tuple[Any, ...]


def run_chunk(
    mech: Mechanism, events: Any, datas: tuple[Any, ...], task: Task
) -> tuple[tuple[str, tuple[int, ...]], Any]:
    """((kind, shape), what was asked): the outputs when ``events`` is None, one tally per key
    function for a :class:`Tally`, (counts, tallies) for a :class:`CountTally`, else the
    count of each event (with the task's ``cuts``: that and the counts of the rows before each
    cut, one row per cut)."""
    rng = chunk_rng(task.entropy, task.stream, task.index)
    y = draw(mech, datas[task.which], task.size, rng)
    shape = (kind_of(y), tuple(y.shape[1:]))
    if events is None:
        return shape, y
    if isinstance(events, Tally):
        from auditor.engine.select import tally

        return shape, [tally(k, y) for k in events.keys]
    if isinstance(events, CountTally):
        from auditor.engine.select import tally

        parts = [tally(k, y) for k in events.keys]
        tables = {k: (p[0], p[1]) for k, p in zip(events.keys, parts)}
        return shape, (count_events(events.events, y, tables), parts)
    if task.cuts:
        edges = (0, *task.cuts, len(y))
        parts = np.cumsum([count_events(events, y[i:j]) for i, j in pairwise(edges)], 0)
        return shape, (parts[-1], parts[:-1])
    return shape, count_events(events, y)


_PAYLOADS: OrderedDict[str, tuple[Any, ...]] = OrderedDict()  # per worker process
MISSING = "dpaudit: payload missing"


def _remote_chunk(digest: str, payload: bytes | None, task: Task):
    """What a worker runs. The mechanism, the events and the datasets travel pickled with the
    first tasks of a phase only and are kept here by digest; later tasks are a few integers.
    A worker that has not seen the payload answers :data:`MISSING` and gets it again."""
    objects = _PAYLOADS.get(digest)
    if objects is None:
        if payload is None:
            return MISSING
        from auditor.engine.shipping import unship

        try:
            objects = _PAYLOADS[digest] = unship(payload)
        except Exception as exc:
            raise InputError(
                f"a worker could not load the mechanism ({type(exc).__name__}: {exc}); install "
                "its module where the workers run, or use 1 worker."
            ) from None
        while len(_PAYLOADS) > 4:
            _PAYLOADS.popitem(last=False)
    mech, events, datas = objects
    return run_chunk(mech, events, datas, task)


def _own_modules(func: Any) -> list[Any]:
    """The user's modules defining ``func`` (and its type), to send to a cluster by value. A
    Dask worker lives across audits and keeps the copy of a module it imported first: sent by
    name, a mechanism edited since would run as it was. Installed packages (site-packages,
    the standard library, this package) and compiled modules are sent by name, as usual."""
    import sysconfig

    installed = tuple(
        os.path.realpath(p)
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        if (p := sysconfig.get_paths().get(key))
    )
    out = []
    for name in {getattr(func, "__module__", None), type(func).__module__}:
        module = sys.modules.get(name) if name else None
        path = getattr(module, "__file__", None)
        if not path or name.partition(".")[0] in ("auditor", "proofs", "__main__", "builtins"):
            continue
        if path.endswith(".py") and not os.path.realpath(path).startswith(installed):
            out.append(module)
    return out


class Runner:
    """Runs chunk tasks and yields their results in task order, a bounded window in flight."""

    def __init__(self, executor: Executor | None, workers: int, label: str, close=None):
        self.executor, self.workers, self.label = executor, workers, label
        self._close = close

    @property
    def inline(self) -> bool:
        return self.executor is None

    def results(
        self,
        mech: Mechanism,
        events: tuple[Any, ...] | None,
        datas: tuple[Any, ...],
        tasks: Iterable[Task],
    ) -> Iterator[Any]:
        payload = None if self.executor is None else self._payload(mech, events, datas)
        if payload is None:
            for t in tasks:
                yield run_chunk(mech, events, datas, t)
            return
        digest = hashlib.sha256(payload).hexdigest()
        window = max(2, 3 * self.workers)
        pending: deque[tuple[Future, Task]] = deque()
        submit = self.executor.submit

        def take() -> Any:
            future, task = pending.popleft()
            try:
                out = future.result()
            except BrokenExecutor as exc:  # the mechanism killed its worker (os._exit, a crash)
                codes = [ln for ln in str(exc).splitlines() if "exit code" in ln]
                why = codes[0].strip().rstrip(".") if codes else type(exc).__name__
                raise InputError(
                    f"a worker process running mechanism {mech.name} died ({why}); fix the "
                    "mechanism (a crash, os._exit or running out of memory)."
                ) from None
            if isinstance(out, str) and out == MISSING:
                out = submit(_remote_chunk, digest, payload, task).result()
            return out

        try:
            for i, t in enumerate(tasks):
                # the first window carries the payload, so every worker is likely to get it
                pending.append(
                    (submit(_remote_chunk, digest, payload if i < window else None, t), t)
                )
                if len(pending) >= window:
                    yield take()
            while pending:
                yield take()
        finally:
            for f, _ in pending:
                f.cancel()

    def _payload(self, mech: Mechanism, events: Any, datas: tuple[Any, ...]) -> bytes | None:
        """The pickled work of a phase; None (run here) when the mechanism cannot be pickled,
        e.g. a closure over a lock or a library handle. Same chunks, so the same result."""
        import cloudpickle

        from auditor.engine.shipping import ship

        ours = _own_modules(mech.func) if self.label == "dask" else []
        ours = [m for m in ours if m.__name__ not in cloudpickle.list_registry_pickle_by_value()]
        try:
            for module in ours:
                cloudpickle.register_pickle_by_value(module)
            try:
                return ship((mech, events, datas))
            except Exception:
                if not ours:
                    raise
                for module in ours:  # by value fails (a global lock, a handle): by name, as before
                    cloudpickle.unregister_pickle_by_value(module)
                ours = []
                return ship((mech, events, datas))
        except Exception as exc:
            print(
                f"dpaudit: warning: mechanism {mech.name} cannot be sent to workers "
                f"({type(exc).__name__}: {exc}); running in this process. Use a module-level "
                "function that builds what it needs to use every core.",
                file=sys.stderr,
                flush=True,
            )
            self.executor, self.workers, self.label = None, 1, "inline"
            return None
        finally:
            for module in ours:
                cloudpickle.unregister_pickle_by_value(module)

    def abort(self) -> None:
        """After an interrupt: stop the local pool's workers now instead of waiting for them."""
        if self.executor is not None and self.label.startswith("local"):
            try:
                self.executor.shutdown(wait=False, kill_workers=True)  # type: ignore[call-arg]
            except TypeError:  # pragma: no cover - a plain Executor
                self.executor.shutdown(wait=False)

    def close(self) -> None:
        if self._close is not None:
            self._close()


def _check_workers(workers: Any) -> int:
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"workers={workers!r} must be an integer >= 1, e.g. 2.")
    if workers > MAX_WORKERS:
        raise InputError(
            f"workers={workers!r} would start more than {MAX_WORKERS} processes; give at most "
            f"the cores to use ({default_workers()} here)."
        )
    return int(workers)


def _dask(scheduler: str | None, workers: int) -> tuple[Executor, int, Callable[[], None]]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            "executor 'dask' needs the dask extra; install it with pip install 'dpaudit[dask]'."
        ) from None
    if not scheduler:
        return _local_dask(Client, workers)
    if not re.fullmatch(r"([a-z]+://)?[\w.\-\[\]:]+:\d+/?", scheduler.strip()):
        # (checked here: a Client half-built on a bad address hangs in its finaliser)
        raise InputError(
            f"scheduler {scheduler!r} is not an address; give one like tcp://HOST:8786."
        )
    try:
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            f"scheduler {scheduler!r} is unreachable ({type(exc).__name__}) within "
            f"{SCHEDULER_TIMEOUT} s; check the address or start one with `dask scheduler`."
        ) from None
    threads = sum(client.nthreads().values()) or 1
    return client.get_executor(), threads, client.close


def _local_dask(client_type, workers: int) -> tuple[Executor, int, Callable[[], None]]:
    """A Dask cluster on this machine (no scheduler given): ``workers`` single-threaded worker
    processes, closed with the audit."""
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = client_type(cluster, set_as_default=False)

    def close() -> None:
        client.close()
        cluster.close()

    return client.get_executor(), workers, close


def open_runner(
    executor: str | Executor | None,
    workers: int | None,
    scheduler: str | None,
    serial_seconds: float,
) -> Runner:
    """The runner for an audit whose chunks would take ``serial_seconds`` on one core."""
    n = _check_workers(workers)
    if isinstance(executor, Executor):
        return Runner(executor, n, "executor")
    kind = executor or "local"
    if kind not in EXECUTORS:
        raise InputError(f"executor={kind!r} is unknown; use one of {', '.join(EXECUTORS)}.")
    if kind == "dask":
        ex, threads, close = _dask(scheduler, n)
        return Runner(ex, threads, "dask", close)
    if scheduler:
        raise InputError(
            f"scheduler={scheduler!r} is only used by the dask executor; choose executor dask."
        )
    if n == 1 or serial_seconds < INLINE_SECONDS:
        return Runner(None, 1, "inline")
    _quiet_cancelled_race()
    pool = local_pool(n)
    _POOLS[id(pool)] = pool
    return Runner(pool, n, f"local:{n}")


def local_pool(workers: int, reuse: bool | str = "auto") -> Executor:
    """The local process pool of ``workers`` loky workers, the one every local audit of this
    process reuses (asked for with other settings, loky shuts it down and starts another:
    start it here to share it). ``reuse=False`` starts new workers."""
    from loky import get_reusable_executor

    return get_reusable_executor(
        max_workers=workers, timeout=60, reuse=reuse, initializer=_end_with_parent
    )


def _end_with_parent() -> None:
    """In each local worker: end once dpaudit's process is gone. A kill -9 of it left its
    workers drawing their chunks, at full CPU, for minutes. Polled each second: the parent's
    pid changes only when it dies and the worker is adopted."""
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="dpaudit-parent", daemon=True).start()


class _CancelledRace(logging.Filter):
    """Drops the one record of loky's manager thread that is no news: stopping a pool with
    ``kill_workers`` sets an error on each pending future, and one this audit had cancelled
    (an interrupt leaves the rest of a phase cancelled) raises InvalidStateError, which loky
    logged as a traceback after "dpaudit: interrupted" (2 interrupts in 40)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, InvalidStateError)


def _quiet_cancelled_race() -> None:
    log = logging.getLogger("concurrent.futures")  # (loky logs through it)
    if not any(isinstance(f, _CancelledRace) for f in log.filters):
        log.addFilter(_CancelledRace())


_POOLS: dict[int, Any] = {}  # the local pools started (loky reuses one per thread)


def stop_pools() -> None:
    """Stop every local pool's workers now (the command line, before it exits)."""
    while _POOLS:
        _, pool = _POOLS.popitem()
        with contextlib.suppress(Exception):
            pool.shutdown(wait=True, kill_workers=True)
