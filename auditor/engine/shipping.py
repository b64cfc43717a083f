"""How a mechanism travels to worker processes: pickled with cloudpickle, plus the user's
files it was loaded from.

A TARGET given as ``path/to/file.py:callable`` is imported under a made-up module name that no
worker can import. Its functions and classes are therefore pickled by value (cloudpickle's
``register_pickle_by_value``), but some objects are pickled by name whatever the registry
says: a ``functools.cache`` or ``lru_cache`` wrapper, for one. A worker then failed with
"No module named '_dpaudit_target_...'". So every shipped pickle also names the files loaded
that way, and a worker that lacks such a module loads it from its file (when the file is
there: a local pool always, a Dask worker on a shared file system) before unpickling.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import sys
from types import ModuleType
from typing import Any

__all__ = ["register_file_module", "ship", "unship"]

_FILES: dict[str, str] = {}  # module name -> the file it was loaded from


def register_file_module(module: ModuleType) -> None:
    """``module`` was loaded from a file under a name workers cannot import: send its
    functions by value, and its file with every shipped pickle."""
    import cloudpickle

    cloudpickle.register_pickle_by_value(module)
    _FILES[module.__name__] = os.path.abspath(module.__file__ or "")


def ship(obj: Any) -> bytes:
    """``obj`` pickled for another process (cloudpickle), with the files of
    :func:`register_file_module` it may need there."""
    import cloudpickle

    return pickle.dumps((tuple(_FILES.items()), cloudpickle.dumps(obj)))


def unship(blob: bytes) -> Any:
    """What :func:`ship` pickled, its files' modules loaded first where missing."""
    import cloudpickle

    files, inner = pickle.loads(blob)
    for name, path in files:
        if name not in sys.modules and os.path.isfile(path):
            _load(name, path)
    return cloudpickle.loads(inner)


def _load(name: str, path: str) -> None:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit):
        # (the unpickling then fails as it would have, and says which module it lacked)
        del sys.modules[name]
