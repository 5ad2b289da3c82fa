"""``sessions/<pid>.json``: the status file a running Claude Code process keeps (2.1.3xx).

The file names the session the process is running and its status: ``busy``, ``idle``, or
``waiting`` with ``waitingFor`` saying on what (``permission prompt``, ``input needed``). It is
removed on a clean exit, so one left behind by a killed process keeps claiming whatever it
said last. A status is therefore trusted only while the recorded pid is alive *and* still
the process that wrote the file: the golden stores show ``startedAt`` is the process's start
time in epoch milliseconds (``startedAt - procStart/CLK_TCK`` gives the same boot time for
both recorded processes), so a live process whose start time differs from it is a later
process that reused the pid. Where the process table reports no start time, the command
line must name Claude; where it reports neither, nothing can be verified and the file
claims nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import attrs
from cargento.processes import ProcessTable
from cargento.readers import read_json_object
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["START_TOLERANCE_S", "PidFile", "named", "parse", "scan", "verify"]

#: How far the process table's start time may be from ``startedAt`` (clock-tick and
#: boot-time rounding on Linux amount to about a second).
START_TOLERANCE_S = 5.0
_MAX_BYTES = 64 * 1024
STATUSES = frozenset({"busy", "idle", "waiting"})


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class PidFile:
    """One parsed ``sessions/<pid>.json``."""

    path: str
    pid: int
    session_id: str
    status: str | None = None
    waiting_for: str | None = None
    started_at: datetime | None = None
    status_at: datetime | None = None
    cwd: str | None = None
    #: ``size:mtime_ns`` of the file when it was parsed.
    stamp: str = ""


def parse(path: Path) -> PidFile | None:
    """Parse one pid file; ``None`` when it is not one (damaged, foreign, incomplete)."""
    try:
        st = path.stat()
        if st.st_size > _MAX_BYTES:
            return None
    except OSError:
        return None
    data = read_json_object(path, max_bytes=_MAX_BYTES)
    if data is None:
        return None
    pid, sid = data.get("pid"), data.get("sessionId")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0 or not isinstance(sid, str) or not sid:
        return None
    status = data.get("status")
    waiting = data.get("waitingFor")
    cwd = data.get("cwd")
    return PidFile(
        path=str(path),
        pid=pid,
        session_id=sid,
        status=status if isinstance(status, str) and status in STATUSES else None,
        waiting_for=waiting.strip() if isinstance(waiting, str) and waiting.strip() else None,
        started_at=parse_ts(data.get("startedAt")),
        status_at=parse_ts(data.get("statusUpdatedAt")) or parse_ts(data.get("updatedAt")),
        cwd=cwd if isinstance(cwd, str) and cwd else None,
        stamp=f"{st.st_size}:{st.st_mtime_ns}",
    )


def named(folder: Path, name: str) -> PidFile | None:
    """The pid file *name* in *folder*, when it is one (``<pid>.json`` naming that pid)."""
    if not name.endswith(".json") or not name[: -len(".json")].isdigit():
        return None
    parsed = parse(folder / name)
    return parsed if parsed is not None and str(parsed.pid) == name[: -len(".json")] else None


def scan(folder: Path) -> Iterable[PidFile]:
    """Every parseable ``<pid>.json`` in *folder*, by name (nothing when it is missing)."""
    try:
        names = sorted(e.name for e in os.scandir(folder))
    except OSError:
        return []
    return [found for found in (named(folder, name) for name in names) if found is not None]


def verify(pid_file: PidFile, processes: ProcessTable) -> bool:
    """True when the recorded pid is alive and still the process that wrote the file."""
    try:
        info = processes.get(pid_file.pid)
    except OSError:
        return False
    if info is None:
        return False
    if info.started_at is not None:
        if pid_file.started_at is None:
            return False
        return abs(info.started_at - pid_file.started_at.timestamp()) <= START_TOLERANCE_S
    if info.cmdline:
        return "claude" in info.cmdline.lower()
    return False
