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
from cargento.evidence import shown_path
from cargento.models import Evidence, EvidenceReading, Overruled, TurnEvidence

from cargento_harness_claude.discovery import SessionFiles
from cargento_harness_claude.pidfile import PidFile
from cargento_harness_claude.transcript import Summary

__all__ = ["BUSY_HOLD_S", "apply", "evidence", "trusted"]

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


def _claim(pid: PidFile) -> str:
    said = f"pid file of process {pid.pid} says {pid.status or 'no known status'}"
    if pid.status == "waiting" and pid.waiting_for:
        said += f" ({pid.waiting_for})"
    return said


def evidence(files: SessionFiles | None, summary: Summary | None, home: str) -> tuple[Evidence, ...]:
    """What the pid file contributed to the reading, as evidence: a trusted status, or why it
    was not believed (its process is gone or is another process now, or the transcript moved
    on after it). Paths are shown with *home* written ``~``."""
    if files is None or files.pid is None:
        return ()
    pid = files.pid
    shown = shown_path(pid.path, home)
    said = _claim(pid)
    reading: EvidenceReading = "wait" if pid.status == "waiting" else "state"
    if not files.pid_live:
        return (
            Evidence(
                reading=reading,
                signal="process table",
                source=f"pid {pid.pid}",
                said=f"process {pid.pid} that wrote the pid file is not running as that process",
                overruled=Overruled(
                    signal="store record",
                    source=shown,
                    observed_at=pid.status_at,
                    said=said,
                    why="a pid file left by an exited process keeps claiming what it said last",
                ),
            ),
        )
    believed = trusted(files, summary)
    if believed is None and pid.status in ("waiting", "idle") and summary is not None:
        return (
            Evidence(
                reading=reading,
                signal="store record",
                source=shown_path(str(files.transcript), home) if files.transcript else "transcript",
                observed_at=summary.last_at,
                said="the transcript was written after the pid file's status",
                overruled=Overruled(
                    signal="store record",
                    source=shown,
                    observed_at=pid.status_at,
                    said=said,
                    why="a waiting or idle process writes nothing, so a later transcript write supersedes it",
                ),
            ),
        )
    if believed is None:
        return ()
    return (
        Evidence(
            reading="state",
            signal="process table",
            source=f"pid {pid.pid}",
            said=f"process {pid.pid} is alive and is the process that wrote the pid file",
        ),
        Evidence(reading="state", signal="store record", source=shown, observed_at=pid.status_at, said=said),
    )
