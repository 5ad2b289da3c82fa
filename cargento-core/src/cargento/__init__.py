"""Cargento core: the harness plugin framework, the board, and the ``cargento`` command.

Plugin authors import the hook marker and the models from here::

    from cargento import hookimpl, HarnessInfo, Discovery, SessionRef, SessionReading

They are loaded on first use, so a hook forwarder (which imports ``cargento.forwarders``) pays
for none of them.
"""

from __future__ import annotations

# ``typing`` only for the type checker: the hook forwarders import this package on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pluggy

    from cargento.errors import HarnessDataMissing, HarnessError, HarnessFormatUnsupported, StoreLocked
    from cargento.models import (
        Discovery,
        Evidence,
        Gate,
        HarnessContext,
        HarnessInfo,
        HarnessMark,
        Instruction,
        LoopReading,
        ModelInfo,
        Overruled,
        ProcessTie,
        RateLimit,
        ReadingProvider,
        SessionReading,
        SessionRef,
        Simulation,
        StoreLocation,
        Subagent,
        Task,
        TurnEvidence,
        Usage,
        WorkRecord,
    )

    #: The marker harness plugins decorate their hook implementations with.
    hookimpl: pluggy.HookimplMarker

__version__ = "0.1.0"


__all__ = [
    "Discovery",
    "Evidence",
    "Gate",
    "HarnessContext",
    "HarnessDataMissing",
    "HarnessError",
    "HarnessFormatUnsupported",
    "HarnessInfo",
    "HarnessMark",
    "Instruction",
    "LoopReading",
    "ModelInfo",
    "Overruled",
    "ProcessTie",
    "RateLimit",
    "ReadingProvider",
    "SessionReading",
    "SessionRef",
    "Simulation",
    "StoreLocation",
    "StoreLocked",
    "Subagent",
    "Task",
    "TurnEvidence",
    "Usage",
    "WorkRecord",
    "__version__",
    "hookimpl",
]

_ERRORS = ("HarnessDataMissing", "HarnessError", "HarnessFormatUnsupported", "StoreLocked")


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        value: Any = pluggy.HookimplMarker("cargento")
    elif name in _ERRORS:
        value = getattr(_module("cargento.errors"), name)
    elif name in __all__:
        value = getattr(_module("cargento.models"), name)
    else:
        raise AttributeError(f"module 'cargento' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def _module(name: str) -> Any:
    """The module *name*, imported on first use (:mod:`importlib` itself only then: the hook
    forwarders import this package on every hook)."""
    import importlib

    return importlib.import_module(name)
