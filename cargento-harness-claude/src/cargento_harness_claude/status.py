"""The passive state signal of ``sessions/<pid>.json``, applied to what the transcript says.

A verified live process's status is read as: ``waiting`` is Needs input (see
:mod:`cargento_harness_claude.gates`), ``idle`` ends the turn at once, ``busy`` is working.
``waiting`` and ``idle`` describe a process that writes nothing while it holds them, so a
transcript message written after the status changed supersedes them (the file lags); ``busy``
is expected to be followed by writes.
"""

from __future__ import annotations

from datetime import timedelta

import attrs
from cargento.models import TurnEvidence

from cargento_harness_claude.discovery import SessionFiles
from cargento_harness_claude.pidfile import PidFile
from cargento_harness_claude.transcript import Summary

__all__ = ["BUSY_HOLD_S", "apply", "trusted"]

#: How long a verified ``busy`` status holds the row Working without any newer write.
BUSY_HOLD_S = 1800.0
_LAG_S = 2.0


def trusted(files: SessionFiles | None, summary: Summary | None) -> PidFile | None:
    """The session's pid file when its status may be believed now, else ``None``."""
    if files is None or files.pid is None or not files.pid_live or files.pid.status is None:
        return None
    pid = files.pid
    lagging = (
        summary is not None
        and summary.last_at is not None
        and (pid.status_at is None or summary.last_at > pid.status_at + timedelta(seconds=_LAG_S))
    )
    if pid.status in ("waiting", "idle") and lagging:
        return None
    return pid


def apply(turn: TurnEvidence, pid: PidFile | None, summary: Summary) -> TurnEvidence:
    """The turn evidence once a trusted status is taken into account."""
    if pid is None:
        return turn
    if pid.status == "idle":
        return attrs.evolve(turn, state="ended", started_at=None, banked_s=0.0, ended_at=pid.status_at or turn.ended_at)
    if pid.status == "busy":
        moments = [m for m in (pid.status_at, summary.last_at) if m is not None]
        if not moments:
            return turn
        return attrs.evolve(turn, state="open", busy_until=max(moments) + timedelta(seconds=BUSY_HOLD_S))
    return turn
