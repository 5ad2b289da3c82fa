"""Cargento core: the harness plugin framework, the board, and the ``cargento`` command.

Plugin authors import the hook marker and the models from here::

    from cargento import hookimpl, HarnessInfo, Discovery, SessionRef, SessionReading
"""

from __future__ import annotations

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
    SessionReading,
    SessionRef,
    Simulation,
    StoreLocation,
    Subagent,
    Task,
    TurnEvidence,
    Usage,
)

__version__ = "0.1.0"

#: The marker harness plugins decorate their hook implementations with.
hookimpl = pluggy.HookimplMarker("cargento")

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
    "SessionReading",
    "SessionRef",
    "Simulation",
    "StoreLocation",
    "StoreLocked",
    "Subagent",
    "Task",
    "TurnEvidence",
    "Usage",
    "__version__",
    "hookimpl",
]
