"""Lazy package exports (PEP 562): a package lists which module defines each public name, and
the module is imported on first use, so importing the package stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: dict[str, tuple[str, ...]], namespace: dict
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """(__all__, __getattr__, __dir__) for `package` whose names live in `exports`
    (module -> names). A resolved name is cached in the package's `namespace`."""
    module_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(module_of)

    return list(module_of), __getattr__, __dir__
