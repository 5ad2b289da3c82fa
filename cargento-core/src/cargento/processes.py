"""A read-only view of running processes, lent to plugins through the hook context.

Plugins ask it whether a pid recorded in a store still belongs to the process that wrote it,
and never probe processes themselves, so tests and ``--as-of`` replays can substitute a table.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Protocol

import attrs

from cargento.liveness import pid_alive

__all__ = ["LocalProcesses", "ProcessInfo", "ProcessTable", "StaticProcesses", "pid_alive"]


@attrs.frozen(kw_only=True)
class ProcessInfo:
    pid: int
    #: Start time in epoch seconds, where the platform tells it.
    started_at: float | None = None
    cmdline: str | None = None


class ProcessTable(Protocol):
    def get(self, pid: int) -> ProcessInfo | None:
        """The live process with this pid, or ``None`` when there is none."""


class LocalProcesses:
    """The processes of this machine (``/proc`` on Linux; existence only elsewhere)."""

    def __init__(self) -> None:
        self._boot: float | None = None
        self._tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _boot_time(self) -> float | None:
        if self._boot is None:
            try:
                with open("/proc/stat", "rb") as fh:
                    for line in fh:
                        if line.startswith(b"btime "):
                            self._boot = float(line.split()[1])
                            break
            except OSError:
                return None
        return self._boot

    def get(self, pid: int) -> ProcessInfo | None:
        if pid <= 0:
            return None
        if sys.platform.startswith("linux"):
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    stat = fh.read()
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    cmd = fh.read(4096).replace(b"\0", b" ").decode("utf-8", "replace").strip()
            except OSError:
                return None
            started: float | None = None
            try:
                fields = stat[stat.rindex(b")") + 2 :].split()
                boot = self._boot_time()
                if boot is not None:
                    started = boot + int(fields[19]) / float(self._tick)
            except (ValueError, IndexError):
                started = None
            return ProcessInfo(pid=pid, started_at=started, cmdline=cmd or None)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except (PermissionError, OSError):
            pass
        return ProcessInfo(pid=pid)


class StaticProcesses:
    """A fixed process table, for tests and replays (an empty one: nothing is running)."""

    def __init__(self, table: Mapping[int, ProcessInfo] | None = None) -> None:
        self.table = dict(table or {})

    def get(self, pid: int) -> ProcessInfo | None:
        return self.table.get(pid)
