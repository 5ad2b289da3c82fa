"""uvicorn's ``Config`` and ``Server``, imported without the package's command line.

``import uvicorn`` (and so any ``import uvicorn.<module>``, which runs the package first) runs
the package's ``__init__``, and that imports ``uvicorn.main``: click, the reloaders
(``watchfiles``, ``multiprocessing``) and the worker supervisors, about a fifth of uvicorn's
import time and over a megabyte of a server that uses none of them (the dashboard and the OTLP
receiver drive ``uvicorn.server.Server`` themselves; docs/benchmark.md, issue 24).

Before the first ``uvicorn`` import, :func:`register_package` puts the package in
``sys.modules`` unexecuted, with its real spec and search path, so its modules import as they
always do. The names the package exports are answered on first use: ``Config``, ``Server`` and
``__version__`` from the modules that define them (uvicorn's own ``lifespan.on`` asks the
package for ``Config``), anything else (``uvicorn.run``, ``uvicorn.main``) by running the
package's ``__init__`` then, so other code in the process sees the whole package as before.
Where ``uvicorn`` was imported already, nothing changes.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

__all__ = ["Config", "Server", "is_whole", "register_package"]

#: The package's exports that one of its modules defines, answered without its ``__init__``.
_DEFINED_IN = {
    "Config": "uvicorn.config",
    "Server": "uvicorn.server",
    "__version__": "uvicorn._version",
}


def register_package() -> bool:
    """Put ``uvicorn`` in ``sys.modules`` without running its ``__init__``; ``False`` when it
    was imported already, or cannot be found (then importing it fails as it would have)."""
    if "uvicorn" in sys.modules:
        return False
    spec = importlib.util.find_spec("uvicorn")
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    package = importlib.util.module_from_spec(spec)
    whole = threading.Lock()
    loader = spec.loader

    def __getattr__(name: str) -> Any:
        module = _DEFINED_IN.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            setattr(package, name, value)
            return value
        with whole:
            if package.__dict__.get("__getattr__") is __getattr__:
                del package.__dict__["__getattr__"]
                loader.exec_module(package)
        try:
            return package.__dict__[name]
        except KeyError:
            raise AttributeError(f"module 'uvicorn' has no attribute {name!r}") from None

    package.__dict__["__getattr__"] = __getattr__
    sys.modules["uvicorn"] = package
    return True


def is_whole(package: ModuleType) -> bool:
    """Whether the package's own ``__init__`` has run (``uvicorn.main`` and ``run`` are there)."""
    return "__getattr__" not in package.__dict__


register_package()

from uvicorn.config import Config  # noqa: E402  (the package is registered first)
from uvicorn.server import Server  # noqa: E402
