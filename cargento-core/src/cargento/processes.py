"""A read-only view of running processes, lent to plugins through the hook context.

Plugins ask it whether a pid recorded in a store still belongs to the process that wrote it,
and never probe processes themselves, so tests and ``--as-of`` replays can substitute a table.
The live table reads the process table through ``psutil`` on Linux, macOS and Windows alike
(start time, command line and working directory where the platform lets this user see them).

A table may also *list* its processes (:meth:`ProcessTable.listing`), which is what ties a
running harness CLI to a session's directory (:mod:`cargento.board.liveness`). A replay, a
demo and a test table cannot be listed (``None``): then no process claim is made at all,
rather than every session reading as if its process had exited.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

import attrs
import psutil

from cargento.liveness import pid_alive
from cargento.sharedmethods import shared_methods

__all__ = ["LocalProcesses", "ProcessInfo", "ProcessTable", "StaticProcesses", "pid_alive"]

#: Processes listed at most (a runaway machine does not turn one board build into a crawl).
MAX_LISTED = 4096


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ProcessInfo:
    pid: int
    #: Start time in epoch seconds, where the platform tells it.
    started_at: float | None = None
    cmdline: str | None = None
    #: The argument vector, where this user may read it.
    argv: tuple[str, ...] = ()
    #: The working directory, where this user may read it (``None`` otherwise).
    cwd: str | None = None


class ProcessTable(Protocol):
    def get(self, pid: int) -> ProcessInfo | None:
        """The live process with this pid, or ``None`` when there is none."""

    def listing(self) -> tuple[ProcessInfo, ...] | None:
        """Every live process this user can see, or ``None`` when this table cannot be listed
        (a replay, a demo, a test): a caller then claims nothing from absence."""


def _info(proc: psutil.Process, *, cwd: bool) -> ProcessInfo | None:
    """What psutil lets this user read of *proc*; ``None`` once it has exited (or is a zombie)."""
    try:
        with proc.oneshot():
            if proc.status() == psutil.STATUS_ZOMBIE:
                return None
            started: float | None = proc.create_time()
            try:
                argv = tuple(proc.cmdline())
            except (psutil.AccessDenied, psutil.ZombieProcess):
                argv = ()
            where: str | None = None
            if cwd:
                try:
                    where = proc.cwd() or None
                except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
                    where = None
    except psutil.NoSuchProcess:
        return None
    except psutil.AccessDenied:
        # It exists, but this user may read nothing of it: existence only.
        return ProcessInfo(pid=proc.pid)
    command = " ".join(argv)[:4096].strip() or None
    return ProcessInfo(pid=proc.pid, started_at=started, cmdline=command, argv=argv, cwd=where)


class LocalProcesses:
    """The processes of this machine, through psutil on every platform.

    *listing* False makes a table that answers :meth:`get` but cannot be listed (the demo and
    ``--as-of`` replays: nothing running now says anything about those stores).
    """

    def __init__(self, *, listing: bool = True) -> None:
        self._listing = listing

    def get(self, pid: int) -> ProcessInfo | None:
        if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
            return None
        try:
            proc = psutil.Process(pid)
        except (psutil.NoSuchProcess, ValueError):
            return None
        except psutil.AccessDenied:
            return ProcessInfo(pid=pid)
        return _info(proc, cwd=False)

    def listing(self) -> tuple[ProcessInfo, ...] | None:
        if not self._listing:
            return None
        found: list[ProcessInfo] = []
        try:
            for proc in psutil.process_iter():
                info = _info(proc, cwd=True)
                if info is not None:
                    found.append(info)
                if len(found) >= MAX_LISTED:
                    break
        except (psutil.Error, OSError):
            return None
        return tuple(found)


class StaticProcesses:
    """A fixed process table, for tests and replays (an empty one: nothing is running).

    *listed* makes it listable: ``StaticProcesses(table, listed=True)`` says "these and no
    others are running", the default says nothing about processes it does not hold.
    """

    def __init__(
        self, table: Mapping[int, ProcessInfo] | Iterable[ProcessInfo] | None = None, *, listed: bool = False
    ) -> None:
        if table is None:
            self.table: dict[int, ProcessInfo] = {}
        elif isinstance(table, Mapping):
            self.table = dict(table)
        else:
            self.table = {p.pid: p for p in table}
        self.listed = listed

    def get(self, pid: int) -> ProcessInfo | None:
        return self.table.get(pid)

    def listing(self) -> tuple[ProcessInfo, ...] | None:
        return tuple(self.table.values()) if self.listed else None
