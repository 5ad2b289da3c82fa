"""Process liveness fused with the stores: the process table's word on a harness's rows.

A harness that declares a :class:`~cargento.models.ProcessTie` with ``cwd`` lets core tie its
running CLI to a session by working directory. When the process table can be listed (never in
a replay, the demo or a test table: then nothing is claimed):

* a row read as working or waiting on the store's word alone (not a live lifecycle event,
  which only a running process sends) whose directory no running process of the harness has,
  while every such process's directory could be read, is not shown working or waiting: it
  reads idle, and its evidence names the overrule (the process table over the store);
* a running process of the harness in whose directory no row of the harness has written since
  the process started is *starting*: it has no store yet, and appears as a row of its own
  (:mod:`.starting`) and on the harness's strip entry.

The listing is read at most every :data:`LISTING_TTL_S` seconds, not on every build.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import PurePath

import attrs

from cargento.board.detail import ago
from cargento.board.document import BoardSession, Starting
from cargento.board.evidence import signal_of_source
from cargento.models import Evidence, Overruled, ProcessTie
from cargento.processes import ProcessInfo, ProcessTable
from cargento.sharedmethods import shared_methods

__all__ = ["LISTING_TTL_S", "START_SLACK_S", "HarnessProcesses", "Listing", "apply_liveness", "match"]

#: How long one listing of the process table serves successive builds.
LISTING_TTL_S = 5.0
#: A row written this long before its directory's process started still counts as that
#: process's session (start times and file times come from different clocks' rounding).
START_SLACK_S = 2.0
#: Interpreters a CLI may run under: the script after them names the CLI.
_INTERPRETERS = frozenset({"node", "node.exe", "bun", "bun.exe", "deno", "python", "python3", "python.exe"})


def _base(arg: str) -> str:
    name = PurePath(arg.replace("\\", "/")).name.lower()
    for suffix in (".exe", ".cmd", ".js", ".mjs", ".cjs"):
        name = name.removesuffix(suffix)
    return name


def match(info: ProcessInfo, tie: ProcessTie) -> bool:
    """True when *info* is one of the harness's CLI processes: the basename of its executable,
    or of the script an interpreter runs, is one of the tie's names."""
    argv = info.argv
    if not argv:
        return False
    names = {n.lower() for n in tie.names}
    first = _base(argv[0])
    if first in names:
        return True
    if PurePath(argv[0].replace("\\", "/")).name.lower() in _INTERPRETERS or first in {"node", "bun", "deno"}:
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        return script is not None and _base(script) in names
    return False


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HarnessProcesses:
    """One harness's running CLI processes, as the process table lists them."""

    processes: tuple[ProcessInfo, ...]

    @property
    def cwds(self) -> frozenset[str]:
        return frozenset(_norm(p.cwd) for p in self.processes if p.cwd)

    @property
    def every_cwd_read(self) -> bool:
        return all(p.cwd for p in self.processes)


class Listing:
    """The process table's listing, cached for :data:`LISTING_TTL_S` (``None``: not listable)."""

    def __init__(self, table: ProcessTable) -> None:
        self.table = table
        self._at: float | None = None
        self._listed: tuple[ProcessInfo, ...] | None = None
        #: The listing the matches below were made from, and each tie's processes in it.
        self._matched_for: tuple[ProcessInfo, ...] | None = None
        self._matched: dict[ProcessTie, HarnessProcesses] = {}

    def processes(self) -> tuple[ProcessInfo, ...] | None:
        tick = time.monotonic()
        if self._at is None or tick - self._at >= LISTING_TTL_S:
            listing = getattr(self.table, "listing", None)
            self._listed = listing() if callable(listing) else None
            self._at = tick
        return self._listed

    def of(self, tie: ProcessTie) -> HarnessProcesses | None:
        """The processes of the listing that are *tie*'s CLI (matched once per listing read:
        every build and every event's re-derived row asks again until the listing is)."""
        listed = self.processes()
        if listed is None:
            return None
        if self._matched_for is not listed:
            self._matched_for, self._matched = listed, {}
        found = self._matched.get(tie)
        if found is None:
            found = self._matched[tie] = HarnessProcesses(processes=tuple(p for p in listed if match(p, tie)))
        return found


def _exited(row: BoardSession, found: HarnessProcesses) -> Evidence:
    names = "no running process of this harness"
    return Evidence(
        reading="wait" if row.state == "needs_input" else "state",
        signal="process table",
        source="process table · working directories",
        said=f"{names} has the working directory {row.cwd}",
        overruled=Overruled(
            signal="store record",
            source=next((e.source for e in row.evidence if e.signal == "store record"), row.harness),
            observed_at=row.waiting.since if row.waiting else row.last_active_at,
            said=f"the store reads {'needs input' if row.state == 'needs_input' else 'working'}",
            why="a session whose process has exited is not working, and nobody is at its prompt",
        ),
    )


def apply_liveness(
    rows: Sequence[BoardSession], tie: ProcessTie | None, found: HarnessProcesses | None, now: datetime
) -> tuple[list[BoardSession], tuple[Starting, ...]]:
    """*rows* of one harness with the process table's word applied, and its starting processes.

    A harness tied by ``cwd`` gets both; one tied only by its ``pid file`` keeps its own word on
    which session is live (the plugin verifies the pid file against the process table) and
    gets the starting processes only: a process whose directory the listing reads is either
    the session of a row written there since it started, or has written nothing yet."""
    if tie is None or found is None or not {"cwd", "pid file"} & set(tie.ties):
        return list(rows), ()
    if "cwd" not in tie.ties:
        return list(rows), _starting(found.processes, rows)
    live = found.cwds
    out: list[BoardSession] = []
    for row in rows:
        from_store = signal_of_source(row.state_source) != "hook event"
        if (
            row.state in ("working", "needs_input")
            and from_store
            and row.cwd
            and found.every_cwd_read
            and _norm(row.cwd) not in live
        ):
            idle_for = (now - row.last_active_at).total_seconds() if row.last_active_at else None
            row = attrs.evolve(
                row,
                state="idle",
                waiting=None,
                detail=f"process exited · last active {ago(idle_for)}",
                turn=None,
                state_source="process table",
                evidence=(_exited(row, found), *row.evidence),
            )
        out.append(row)
    return out, _starting(found.processes, rows)


def _starting(processes: Iterable[ProcessInfo], rows: Sequence[BoardSession]) -> tuple[Starting, ...]:
    """The processes no row accounts for. A working or waiting row accounts for the processes
    in its directory (the same tie that keeps it working or waiting); an idle row only for
    those it has written since they started (a process started after its last write is a new
    launch or a resume that has written nothing yet); where a process's start time cannot be
    read, any row in its directory accounts for it."""
    live: set[str] = set()
    newest: dict[str, datetime | None] = {}
    for r in rows:
        if not r.cwd:
            continue
        where = _norm(r.cwd)
        if r.state in ("working", "needs_input"):
            live.add(where)
        seen = newest.get(where)
        if where not in newest or (r.last_active_at is not None and (seen is None or r.last_active_at > seen)):
            newest[where] = r.last_active_at
    found: list[Starting] = []
    for p in processes:
        if not p.cwd:
            continue
        started = datetime.fromtimestamp(p.started_at, UTC) if p.started_at is not None else None
        where = _norm(p.cwd)
        if where in live:
            continue
        if where in newest:
            last = newest[where]
            if started is None or (last is not None and last >= started - timedelta(seconds=START_SLACK_S)):
                continue
        found.append(Starting(pid=p.pid, cwd=p.cwd, started_at=started))
    return tuple(sorted(found, key=lambda s: s.pid))
