"""Every module of the installed Cargento packages, imported: for a test that holds all of
them to a rule (how their classes compare, what their classes compile to)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import cargento

__all__ = ["every_module"]


def every_module() -> list[ModuleType]:
    """Core and every installed ``cargento_*`` package (the web app, the harness plugins), each
    module imported; test packages, ``__main__`` modules and the maturity generator are left
    out, and a module whose optional extra is not installed is skipped."""
    packages: list[ModuleType] = [cargento]
    for name in sorted(m.name for m in pkgutil.iter_modules() if m.name.startswith("cargento_")):
        packages.append(importlib.import_module(name))
    found: list[ModuleType] = []
    for package in packages:
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if ".tests" in info.name or info.name.endswith(("__main__", ".testing.maturity")):
                continue
            try:
                found.append(importlib.import_module(info.name))
            except ImportError:
                continue  # an optional extra that is not installed
    return found
