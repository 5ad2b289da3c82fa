"""Finding sessions, at a cost that follows what changed.

A full pass lists ``projects/*/*.jsonl`` (keyed on the full session UUID, the file's stem),
the session folders beside them (legacy subagents), ``tasks/`` (task-only sessions),
``teams/*/config.json`` and ``sessions/<pid>.json``. Everything it learns is kept in the
plugin's cache as a :class:`_State`; when core passes the paths a file watcher reported
(``ctx.changed_paths``), the next pass corrects only what those paths touch: one transcript,
one session folder's subagents, one task folder, one roster, one pid file, or one project
folder listed again. A change it cannot place exactly (the store's top folders themselves, a
path outside the store) or a pass without a watcher report makes a full pass over the kept
state: every folder is listed and every transcript ``stat``-ed again, but only the sessions
whose files differ are derived again. The clock going back or another display window starts
a new state, derived whole.

What the clock alone changes is tracked too: a heap of the moments at which sessions leave
the display window (their head is no longer classified and their ref is no longer listed),
and the set of sessions recent enough that their fingerprint carries a clock bucket.
Sessions outside the display window are kept in the :class:`Index` (a teammate's lead may be
one) but are not listed in the :class:`Discovery`; with ``?all=1`` every session is listed.
The sessions are listed by id, so an incremental pass returns exactly what a full pass over
the same store would.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import os
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef, StoreLocation
from cargento.readers import entry_is_dir
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

from cargento_harness_claude import pidfile, tasks
from cargento_harness_claude.heads import Head, HeadCache
from cargento_harness_claude.listing import Entry, Listing
from cargento_harness_claude.locations import VARIABLE, Store, store
from cargento_harness_claude.subagents import AgentFile, list_agents
from cargento_harness_claude.teams import Roster, parse_roster
from cargento_harness_claude.transcript import followed, retain

__all__ = ["ACTIVE_S", "Head", "Index", "SessionFiles", "Sessions", "discover", "index_for"]

KEY = "claude"
#: While a session's newest file is this recent, its fingerprint also carries a 15-second
#: clock bucket, so readings that age with the clock (running subagents, rates) refresh.
ACTIVE_S = 660.0
_BUCKET_S = 15
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_STATE_KEY = "discovery"
_EPOCH = datetime.min.replace(tzinfo=UTC)


@shared_methods
@attrs.define(repr=False, eq=False)
class SessionFiles:
    """Everything discovery found that belongs to one session."""

    session_id: str
    transcript: str | None
    project_dir: str | None = None
    session_dir: Path | None = None
    # Empty by default (the shared empty tuple, not a new list for each of thousands of old
    # sessions).
    agents: Sequence[AgentFile] = ()
    task_folders: Sequence[Path] = ()
    head: Head | None = None
    #: A modern teammate transcript's lead session.
    parent_id: str | None = None
    #: Modern teammate transcripts folded into this session.
    children: Sequence[str] = ()
    pid: pidfile.PidFile | None = None
    pid_live: bool = False
    mtime: datetime | None = None
    #: ``size:mtime_ns`` of the transcript (``tasks`` for a task-only session).
    stamp: str = "tasks"


def _transcript_only(sid: str, entry: Entry) -> SessionFiles:
    """The files of a session that has its transcript alone (no session folder, no task
    folder, no head read): what a discovery pass makes for it."""
    return SessionFiles(
        session_id=sid, transcript=entry.path, project_dir=entry.project, mtime=entry.mtime, stamp=entry.stamp
    )


class Sessions(Mapping[str, SessionFiles]):
    """Every session's files, by session id.

    Most sessions of a large store are old: outside the display window, with no session
    folder and no task folder, their files are their transcript alone. Such a session is held
    as its listing entry, which the listing keeps anyway, rather than as files of its own (a
    ``SessionFiles`` with the path, time and stamp made for it: about 400 bytes a session).
    Reading it (``sessions[sid]``, ``get``, ``values``) makes its ``SessionFiles`` from the
    entry, equal to what the pass would have made, and holds that from then on, so what is
    set on it later (a pid file, a teammate's lead) stays. Discovery reads what it holds
    through :meth:`held` and :meth:`made`, which make nothing.
    """

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[str, SessionFiles | Entry] = {}

    def __getitem__(self, sid: str) -> SessionFiles:
        held = self._held[sid]
        if isinstance(held, Entry):
            held = self._held[sid] = _transcript_only(sid, held)
        return held

    def __contains__(self, sid: object) -> bool:
        return sid in self._held

    def __iter__(self) -> Iterator[str]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __eq__(self, other: object) -> bool:
        """Equal files for the same sessions, however each side holds them (nothing is made
        to be held)."""
        if not isinstance(other, Sessions):
            return NotImplemented
        mine, theirs = self._held, other._held
        return mine.keys() == theirs.keys() and all(
            _as_files(sid, held) == _as_files(sid, theirs[sid]) for sid, held in mine.items()
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dict it stands for

    def __repr__(self) -> str:
        return f"Sessions({ {sid: _as_files(sid, held) for sid, held in self._held.items()}!r})"

    def held(self, sid: str) -> SessionFiles | Entry | None:
        """What is held for *sid*: its files, or the listing entry of a transcript-only session."""
        return self._held.get(sid)

    def made(self) -> Iterator[SessionFiles]:
        """The sessions held as files (every session with more than its old transcript)."""
        return (held for held in self._held.values() if not isinstance(held, Entry))

    def holds_transcript(self, path: str) -> bool:
        """True when *path* is the transcript of a session held as its listing entry (found by
        the file name's stem, its session id, without making every such session's path)."""
        name = path.rpartition(os.sep)[2]
        if not name.endswith(".jsonl"):
            return False
        held = self._held.get(name[: -len(".jsonl")])
        return isinstance(held, Entry) and held.path == path

    def hold(self, sid: str, files: SessionFiles | Entry) -> None:
        self._held[sid] = files

    def drop(self, sid: str) -> None:
        self._held.pop(sid, None)


def _as_files(sid: str, held: SessionFiles | Entry) -> SessionFiles:
    return _transcript_only(sid, held) if isinstance(held, Entry) else held


def _transcript(held: SessionFiles | Entry) -> str | None:
    return held.path if isinstance(held, Entry) else held.transcript


@shared_repr
@attrs.define(repr=False, eq=False)
class Index:
    """The latest discovery pass."""

    store: Store
    #: What the store was resolved from: the relocation variable, home and platform.
    key: tuple[str, str, str] = ("", "", "")
    sessions: Sessions = attrs.Factory(Sessions)
    #: Rosters by their lead session id (or, without one, by ``session-<8 hex>`` name).
    rosters: dict[str, Roster] = attrs.Factory(dict)
    problems: list[str] = attrs.Factory(list)

    def roster(self, session_id: str) -> Roster | None:
        """The roster whose lead is *session_id*."""
        return self.rosters.get(session_id) or self.rosters.get(f"session-{session_id[:8]}")


def _key(ctx: HarnessContext) -> tuple[str, str, str]:
    return (ctx.env.get(VARIABLE, ""), str(ctx.home), ctx.platform)


def _task_sid(name: str) -> str | None:
    """The session a task folder name stands for on its own (a task-only session)."""
    sid = name[len("session-") :] if name.startswith("session-") else name
    return sid if _UUID.match(sid) else None


def _plain(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and os.sep not in name


@shared_repr
@attrs.define(repr=False, eq=False)
class _Pass:
    """What one pass must redo."""

    #: Sessions whose files must be derived again.
    files: set[str] = attrs.Factory(set)
    #: Sessions whose ref must be made again.
    refs: set[str] = attrs.Factory(set)
    #: Transcript and agent paths no session lists any more.
    dropped: set[str] = attrs.Factory(set)
    teams: set[str] = attrs.Factory(set)
    pids: set[str] = attrs.Factory(set)
    listing: bool = False
    #: Modification times (``st_mtime_ns``) before which a transcript is outside the display
    #: window beyond doubt (``None``: each is asked of ``in_window``). See :func:`_inside`.
    outside_before_ns: int | None = None


def _outside_before_ns(ctx: HarnessContext) -> int | None:
    """A second short of the window's edge, in nanoseconds: far enough that a time before it
    is outside whatever rounding the datetime ``in_window`` is asked about went through."""
    if ctx.window_s is None:
        return None
    edge_ns = (ctx.now.timestamp() - ctx.window_s - 1.0) * 1e9
    # An endless (or not-a-number) window: every time is asked of in_window.
    return int(edge_ns) if math.isfinite(edge_ns) else None


def _inside(ctx: HarnessContext, entry: Entry, work: _Pass) -> bool:
    """``ctx.in_window(entry.mtime)``, without making the datetime for a transcript long
    outside the window (most of thousands of old ones: two datetimes each at a first pass)."""
    cutoff = work.outside_before_ns
    if cutoff is not None and entry.st_mtime_ns < cutoff:
        return False
    return ctx.in_window(entry.mtime)


class _State:
    """Everything discovery keeps between passes over one store."""

    def __init__(self, ctx: HarnessContext) -> None:
        self.root = store(ctx)
        self.key = _key(ctx)
        self.window_s = ctx.window_s
        self.now = ctx.now
        self.index = Index(store=self.root, key=self.key)
        self.listing = Listing(str(self.root.projects))
        self.heads = HeadCache()
        #: Subagent files by session folder, and the folders to list again.
        self.agents: dict[str, list[AgentFile]] = {}
        self.stale_agents: set[str] = set()
        self.task_names: set[str] = set()
        self.task_sids: set[str] = set()
        self.surveys: dict[str, tasks.Survey] = {}
        #: Session ids (transcripts and task-only candidates) by their first eight characters:
        #: the one id, or (rarely) the set of those that share them; a set for each of
        #: thousands of old sessions would be ~200 bytes apiece. Read through ``prefixed``.
        #: Only a ``session-<prefix>`` team or task folder asks for it, so it is made on the
        #: first question (``None`` until then): a store without one never holds it, and its
        #: first pass does not index thousands of old sessions (about 120 bytes each).
        self.by_prefix: dict[str, str | set[str]] | None = None
        #: Team folder -> (``size:mtime_ns`` of its config, the roster).
        self.team_files: dict[str, tuple[str, Roster | None]] = {}
        self.pids: dict[str, pidfile.PidFile] = {}
        self.pid_of: dict[str, tuple[pidfile.PidFile, bool]] = {}
        #: Teammate transcripts (a head naming agent and team) and their leads.
        self.candidates: set[str] = set()
        self.parents: dict[str, str] = {}
        self.children: dict[str, list[str]] = {}
        self.refs: dict[str, SessionRef] = {}
        self.order: list[str] = []
        self.listed: tuple[SessionRef, ...] = ()
        #: Active sessions (their ref carries the clock bucket) and the moment (a POSIX
        #: timestamp) until which the ref made last stands with no file of theirs changing:
        #: the next bucket, or the session's leaving ACTIVE_S, whichever comes first.
        self.active: dict[str, float] = {}
        #: ``(moment, session)`` leaving the window when the moment does; ``moments`` holds
        #: the live entries (others are stale and skipped).
        self.heap: list[tuple[datetime, str]] = []
        self.moments: dict[str, set[datetime]] = {}
        #: True while the followed transcripts, heads, subagent lists and task surveys hold
        #: nothing a full pass would let go: a full pass pruned them and no session was derived
        #: since (only deriving changes which files are kept; reads follow only those).
        self.tidy = False

    # -- the whole store -----------------------------------------------------------------

    def full(self, ctx: HarnessContext, work: _Pass) -> None:
        """List the whole store again, and mark for deriving again only what differs from what
        this state last saw (on a new state, everything): transcripts and session folders the
        listing reports changed, task and subagent folders whose files changed (they change
        without their folder listing changing, so each is looked into again)."""
        touched = self.listing.scan()
        self._prefixes(touched)
        work.files |= touched
        work.listing = True
        try:
            names = {e.name for e in os.scandir(self.root.tasks) if entry_is_dir(e)}
        except OSError:
            names = set()
        kept = names & self.task_names
        for name in sorted(names ^ self.task_names):
            work.files |= self._task_folder(name)
        for name in sorted(kept):
            fresh = tasks.survey(self.root.tasks / name)
            if self.surveys.get(name) != fresh:
                work.files |= self._task_folder(name)
                if name in self.task_names:
                    self.surveys[name] = fresh
        for folder, known in list(self.agents.items()):
            listed = list_agents(Path(folder))
            if listed != known:
                work.dropped.update({a.path for a in known} - {a.path for a in listed})
                self.agents[folder] = listed
                self.stale_agents.discard(folder)
                work.files.add(os.path.basename(folder))
        try:
            work.teams = {e.name for e in os.scandir(self.root.teams) if entry_is_dir(e)} | set(self.team_files)
        except OSError:
            work.teams = set(self.team_files)
        try:
            work.pids = {e.name for e in os.scandir(self.root.sessions)} | set(self.pids)
        except OSError:
            work.pids = set(self.pids)

    # -- one change at a time ------------------------------------------------------------

    def apply(self, paths: frozenset[str], work: _Pass) -> bool:
        """Place every changed path; ``False`` when one needs a full pass."""
        root = os.path.normpath(str(self.root.root))
        for raw in paths:
            path = os.path.normpath(raw)
            if not path.startswith(root + os.sep):
                return False
            parts = path[len(root) + 1 :].split(os.sep)
            top = parts[0]
            if top not in ("projects", "tasks", "teams", "sessions"):
                continue  # settings, history, caches: nothing discovery reads
            if len(parts) == 1:
                return False
            if top == "projects":
                work.listing = True
                if len(parts) == 2:
                    touched = self.listing.rescan_project(parts[1])
                else:
                    touched = self.listing.update(parts[1], parts[2])
                    folder = os.path.join(self.listing.root, parts[1], parts[2])
                    if folder in self.agents:
                        self.stale_agents.add(folder)
                    touched.add(parts[2][: -len(".jsonl")] if parts[2].endswith(".jsonl") else parts[2])
                for sid in touched:
                    self._prefix(sid)
                work.files |= touched
            elif top == "tasks":
                work.files |= self._task_folder(parts[1])
            elif top == "teams":
                work.teams.add(parts[1])
            elif len(parts) == 2:
                work.pids.add(parts[1])
        return True

    def prefixed(self, prefix: str) -> Collection[str]:
        """The known session ids whose first eight characters are *prefix*."""
        by_prefix = self.by_prefix
        if by_prefix is None:
            # Made from what is known now: the index kept up since would hold just this (every
            # change to the listing or the task-only ids is indexed as it is made).
            by_prefix = self.by_prefix = {}
            self._prefixes(itertools.chain(self.listing.by_sid, self.task_sids))
        held = by_prefix.get(prefix)
        if held is None:
            return ()
        return (held,) if isinstance(held, str) else held

    def _prefix(self, sid: str) -> None:
        self._prefixes((sid,))

    def _prefixes(self, sids: Iterable[str]) -> None:
        """Index (or, when no longer known, unindex) each of *sids* by its prefix (a full
        pass may name every one); nothing while no index was asked for."""
        by_sid, task_sids, by_prefix = self.listing.by_sid, self.task_sids, self.by_prefix
        if by_prefix is None:
            return
        for sid in sids:
            key = sid[:8]
            held = by_prefix.get(key)
            if sid in by_sid or sid in task_sids:
                if held is None or held == sid:
                    by_prefix[key] = sid
                elif isinstance(held, str):
                    by_prefix[key] = {held, sid}
                else:
                    held.add(sid)
            elif held is None:
                continue
            elif isinstance(held, str):
                if held == sid:
                    del by_prefix[key]
            else:
                held.discard(sid)
                if len(held) == 1:
                    (by_prefix[key],) = held
                elif not held:
                    del by_prefix[key]

    def _task_folder(self, name: str) -> set[str]:
        if os.path.isdir(self.root.tasks / name):
            self.task_names.add(name)
        else:
            self.task_names.discard(name)
        self.surveys.pop(name, None)
        touched = {name}
        sid = _task_sid(name)
        if sid is not None:
            if sid in self.task_names or f"session-{sid}" in self.task_names:
                self.task_sids.add(sid)
            else:
                self.task_sids.discard(sid)
            self._prefix(sid)
            touched.add(sid)
        if name.startswith("session-"):
            rest = name[len("session-") :]
            touched.add(rest)
            touched.update(self.prefixed(rest))
        return touched

    # -- what the clock changes ----------------------------------------------------------

    def expire(self, ctx: HarnessContext, work: _Pass) -> None:
        while self.heap and not ctx.in_window(self.heap[0][0]):
            moment, sid = heapq.heappop(self.heap)
            live = self.moments.get(sid)
            if live is not None and moment in live:
                live.discard(moment)
                work.files.add(sid)
        # Only the active refs the clock has moved on: one append re-makes its session's ref,
        # not every active session's.
        now_s = ctx.now.timestamp()
        work.refs.update(sid for sid, until in self.active.items() if now_s >= until)

    def _track(self, ctx: HarnessContext, sid: str, *moments: datetime | None) -> None:
        if ctx.window_s is None:
            return
        want = {m for m in moments if m is not None and ctx.in_window(m)}
        have = self.moments.get(sid, set())
        for moment in want - have:
            heapq.heappush(self.heap, (moment, sid))
        if want:
            self.moments[sid] = want
        else:
            self.moments.pop(sid, None)

    def compact(self) -> None:
        live = sum(len(m) for m in self.moments.values())
        if len(self.heap) > 4 * live + 1024:
            self.heap = [(m, sid) for sid, ms in self.moments.items() for m in ms]
            heapq.heapify(self.heap)

    # -- sessions ------------------------------------------------------------------------

    def derive(self, ctx: HarnessContext, work: _Pass) -> None:
        if work.files:
            self.tidy = False
        sessions = self.index.sessions
        for sid in work.files:
            old = sessions.held(sid)
            files = self._make(ctx, sid, work)
            if old is not None:
                self._let_go(old, files, work)
            if files is None:
                sessions.drop(sid)
                self.candidates.discard(sid)
                continue
            sessions.hold(sid, files)
            head = files.head if isinstance(files, SessionFiles) else None
            if head is not None and head.agent_name is not None and head.team_name is not None:
                self.candidates.add(sid)
            else:
                self.candidates.discard(sid)
        work.refs |= work.files

    def _let_go(self, old: SessionFiles | Entry, files: SessionFiles | Entry | None, work: _Pass) -> None:
        """Let go of what *old* (a session's files before this pass) held that *files* (its
        files now) no longer does: a transcript path, a session folder's subagents."""
        was = _transcript(old)
        if was is not None:
            if files is None or _transcript(files) != was:
                work.dropped.add(was)
                self.heads.forget(was)
            elif isinstance(files, Entry) and isinstance(old, SessionFiles) and old.head is not None:
                # Left the window: its head goes, as _make lets every head outside it go.
                self.heads.forget(was)
        if (
            isinstance(old, SessionFiles)
            and old.session_dir is not None
            and (files is None or isinstance(files, Entry) or files.session_dir != old.session_dir)
        ):
            work.dropped.update(a.path for a in self.agents.pop(str(old.session_dir), []))

    def _make(self, ctx: HarnessContext, sid: str, work: _Pass) -> SessionFiles | Entry | None:
        """The files of *sid*; for a session outside the window with its transcript alone,
        its listing entry (see :class:`Sessions`)."""
        entry = self.listing.winner(sid)
        if entry is not None:
            shown = ctx.window_s is None or _inside(ctx, entry, work)
            has_folder = self.listing.has_folder(entry)
            # Most of thousands of old sessions have no task folder: no names made.
            held = [n for n in tasks.folder_names(sid) if n in self.task_names] if self.task_names else ()
            if not (shown or has_folder or held):
                # Held as its entry. A head read while it was inside the window is let go by
                # _let_go (heads an earlier state left are pruned at the end of this state's
                # first pass, a full one): no path is made here for each old session.
                return entry
            path = entry.path
            files = SessionFiles(
                session_id=sid, transcript=path, project_dir=entry.project, mtime=entry.mtime, stamp=entry.stamp
            )
            if has_folder:
                files.session_dir = Path(path[: -len(".jsonl")])
                files.agents = self._agents(str(files.session_dir), work)
            if shown:
                files.head = self.heads.head(path, entry)
            else:
                self.heads.forget(path)
            if held:
                files.task_folders = tuple(self.root.tasks / n for n in held)
            return files
        if sid not in self.task_sids:
            return None
        names = [n for n in tasks.folder_names(sid) if n in self.task_names]
        moments = [m for m in (self._survey(n).newest for n in names) if m is not None]
        if not moments:
            return None
        return SessionFiles(
            session_id=sid, transcript=None, task_folders=tuple(self.root.tasks / n for n in names), mtime=max(moments)
        )

    def _agents(self, folder: str, work: _Pass) -> list[AgentFile]:
        known = self.agents.get(folder)
        if known is not None and folder not in self.stale_agents:
            return known
        fresh = list_agents(Path(folder))
        if known:
            work.dropped.update({a.path for a in known} - {a.path for a in fresh})
        self.agents[folder] = fresh
        self.stale_agents.discard(folder)
        return fresh

    def _survey(self, name: str) -> tasks.Survey:
        found = self.surveys.get(name)
        if found is None:
            found = self.surveys[name] = tasks.survey(self.root.tasks / name)
        return found

    # -- rosters, pid files, teammates ---------------------------------------------------

    def rosters(self, work: _Pass) -> None:
        if not work.teams:
            return
        for name in work.teams:
            path = self.root.teams / name / "config.json"
            try:
                st = os.stat(path)
            except OSError:
                self.team_files.pop(name, None)  # an older layout without config.json: skipped
                continue
            stamp = f"{st.st_size}:{st.st_mtime_ns}"
            known = self.team_files.get(name)
            if known is None or known[0] != stamp:
                self.team_files[name] = (stamp, parse_roster(path))
        rosters: dict[str, Roster] = {}
        for name in sorted(self.team_files):
            roster = self.team_files[name][1]
            if roster is not None:
                rosters[roster.lead_session_id or name] = roster
        old = self.index.rosters
        for key in set(old) | set(rosters):
            if old.get(key) != rosters.get(key):
                work.refs.add(key)
                if key.startswith("session-"):
                    work.refs.update(self.prefixed(key[len("session-") :]))
        self.index.rosters = rosters

    def pid_files(self, ctx: HarnessContext, work: _Pass) -> None:
        for name in work.pids:
            found = pidfile.named(self.root.sessions, name)
            if found is None:
                self.pids.pop(name, None)
            else:
                self.pids[name] = found
        chosen: dict[str, tuple[pidfile.PidFile, bool]] = {}
        for name in sorted(self.pids):
            pid_file = self.pids[name]
            sid = pid_file.session_id
            if sid not in self.index.sessions:
                continue
            live = pidfile.verify(pid_file, ctx.processes)
            have = chosen.get(sid)
            if (
                have is None
                or (live and not have[1])
                or (live == have[1] and (pid_file.status_at or _EPOCH) > (have[0].status_at or _EPOCH))
            ):
                chosen[sid] = (pid_file, live)
        # A session of work.files with no pid file chosen now or before needs nothing here:
        # its files were made afresh (no pid) and its ref is made again anyway.
        for sid in set(chosen) | set(self.pid_of):
            now, before = chosen.get(sid), self.pid_of.get(sid)
            if now == before and sid not in work.files:
                continue
            files = self.index.sessions.get(sid)
            if files is not None:
                files.pid, files.pid_live = now if now is not None else (None, False)
            work.refs.add(sid)
        self.pid_of = chosen

    def teammates(self, work: _Pass) -> None:
        """Each teammate transcript's lead: by ``session-<prefix>`` team, else by roster."""
        sessions = self.index.sessions
        parents: dict[str, str] = {}
        for sid in sorted(self.candidates):
            files = sessions[sid]
            team = files.head.team_name if files.head is not None else None
            if team is None:
                continue
            parent: SessionFiles | None = None
            if team.startswith("session-"):
                prefix = team[len("session-") :]
                found = [
                    sessions[c]
                    for c in self.prefixed(prefix[:8])
                    if c.startswith(prefix) and c != sid and c in sessions and sessions[c].transcript
                ]
                found.sort(
                    key=lambda c: (
                        c.project_dir != files.project_dir,
                        -(c.mtime.timestamp() if c.mtime else 0.0),
                        c.session_id,
                    )
                )
                parent = found[0] if found else None
            elif _plain(team):
                known = self.team_files.get(team)
                roster = known[1] if known is not None else None
                if roster is not None and roster.lead_session_id:
                    parent = sessions.get(roster.lead_session_id)
            if parent is not None and parent is not files:
                parents[sid] = parent.session_id
        children: dict[str, list[str]] = {}
        for child, lead in sorted(parents.items()):
            children.setdefault(lead, []).append(child)
        changed = {s for s in set(parents) | set(self.parents) if parents.get(s) != self.parents.get(s)}
        changed |= {s for s in set(children) | set(self.children) if children.get(s) != self.children.get(s)}
        # The files of work.files were made afresh (no parent, no children): only those with a
        # lead or teammates now need setting.
        for sid in changed | (work.files & (parents.keys() | children.keys())):
            each = sessions.get(sid)
            if each is not None:
                each.parent_id = parents.get(sid)
                each.children = tuple(children.get(sid, ()))
        work.refs |= changed
        self.parents, self.children = parents, children

    # -- refs ----------------------------------------------------------------------------

    def make_refs(self, ctx: HarnessContext, work: _Pass) -> None:
        location = str(self.root.projects)
        changed = False
        sessions = self.index.sessions
        for sid in work.refs:
            held = sessions.held(sid)
            if held is None:
                ref = None
            elif isinstance(held, Entry) and not _inside(ctx, held, work):
                # A transcript-only session outside the window: no ref, as _ref would answer,
                # and no files made for it.
                self.moments.pop(sid, None)
                ref = None
            else:
                ref = self._ref(ctx, sessions[sid], location)
            if ref is None:
                self.active.pop(sid, None)
                if self.refs.pop(sid, None) is not None:
                    self.order.pop(bisect.bisect_left(self.order, sid))
                    changed = True
                continue
            before = self.refs.get(sid)
            if before is None:
                bisect.insort(self.order, sid)
            if before != ref:
                self.refs[sid] = ref
                changed = True
        if changed:
            self.listed = tuple(self.refs[s] for s in self.order)

    def _ref(self, ctx: HarnessContext, files: SessionFiles, location: str) -> SessionRef | None:
        newest = files.mtime
        for agent in files.agents:
            newest = agent.mtime if newest is None or agent.mtime > newest else newest
        if newest is None or not ctx.in_window(newest):
            # Every moment of the session is older than the newest: nothing left to expire.
            self.moments.pop(files.session_id, None)
            return None
        self._track(ctx, files.session_id, files.mtime, newest)
        active = (ctx.now - newest).total_seconds() <= ACTIVE_S
        if active:
            bucket_ends = (int(ctx.now.timestamp()) // _BUCKET_S + 1) * _BUCKET_S
            self.active[files.session_id] = min(float(bucket_ends), newest.timestamp() + ACTIVE_S)
        else:
            self.active.pop(files.session_id, None)
        parts = [files.stamp]
        parts.extend(f"{a.agent_id}={a.stamp}" for a in files.agents)
        parts.append(tasks.stamp([self._survey(f.name) for f in files.task_folders]))
        roster = self.index.roster(files.session_id)
        if roster is not None:
            parts.append(f"roster={roster.stamp}")
        if files.pid is not None:
            parts.append(f"pid={files.pid.stamp}:{files.pid_live}")
        if files.parent_id is not None:
            parts.append(f"parent={files.parent_id}")
        if files.children:
            parts.append("children=" + ",".join(files.children))
        if active:
            parts.append(f"t={int(ctx.now.timestamp()) // _BUCKET_S}")
        path = files.transcript or str(
            files.task_folders[0] if files.task_folders else self.root.tasks / files.session_id
        )
        return SessionRef(
            harness=KEY,
            session_id=files.session_id,
            path=path,
            location=location,
            modified_at=newest,
            fingerprint="|".join(parts),
        )

    def forget_files(self, ctx: HarnessContext, work: _Pass, *, full: bool) -> None:
        """Let go of followed transcripts and heads no session lists any more."""
        if full:
            # Each table is pruned only when it may hold something to let go (the first pass's
            # are empty; an unchanged store's were pruned already): working out what to keep
            # walks every session of the store.
            if self.tidy and not work.dropped:
                return
            self.tidy = True
            held = self.index.sessions
            sessions = list(held.made())
            table = followed(ctx.cache)
            if table:
                keep = {f.transcript for f in sessions if f.transcript is not None}
                keep.update(a.path for f in sessions for a in f.agents)
                # A session held as its listing entry has a transcript alone: only the followed
                # paths are looked up, rather than a path made for each such session.
                keep.update([p for p in table if p not in keep and held.holds_transcript(p)])
                retain(ctx.cache, keep)
            if len(self.heads):
                self.heads.retain({f.transcript for f in sessions if f.head is not None and f.transcript is not None})
            if self.agents or self.stale_agents:
                live_dirs = {str(f.session_dir) for f in sessions if f.session_dir is not None}
                for gone in [d for d in self.agents if d not in live_dirs]:
                    del self.agents[gone]
                self.stale_agents &= live_dirs
            self.surveys = {n: s for n, s in self.surveys.items() if n in self.task_names}
            return
        if work.dropped:
            table = followed(ctx.cache)
            for path in work.dropped:
                table.pop(path, None)


def _state(ctx: HarnessContext) -> tuple[_State, _Pass, bool]:
    """The kept state and what this pass must redo (the flag: a full pass).

    The kept state is corrected in place while it was made for the same store, window and an
    earlier clock: from the watcher's paths when they can all be placed, else by a full pass
    that derives again only what changed."""
    work = _Pass(outside_before_ns=_outside_before_ns(ctx))
    known = ctx.cache.get(_STATE_KEY)
    if isinstance(known, _State) and known.key == _key(ctx) and known.window_s == ctx.window_s and ctx.now >= known.now:
        if ctx.changed_paths is not None and known.apply(ctx.changed_paths, work):
            return known, work, False
        known.full(ctx, work)
        return known, work, True
    state = _State(ctx)
    if isinstance(known, _State) and known.key == state.key:
        # Per-file caches stay (an unchanged head or roster needs no re-read); nothing
        # derived from a listing that may be stale does.
        state.heads, state.team_files = known.heads, known.team_files
    state.full(ctx, work)
    ctx.cache.set(_STATE_KEY, state)
    return state, work, True


def discover(ctx: HarnessContext) -> tuple[Discovery, Index]:
    """One discovery pass: the sessions found, and the index the other hooks consult."""
    state, work, full = _state(ctx)
    root = state.root
    state.expire(ctx, work)
    state.derive(ctx, work)
    state.rosters(work)
    state.pid_files(ctx, work)
    state.teammates(work)
    state.make_refs(ctx, work)
    state.forget_files(ctx, work, full=full)
    state.compact()
    state.now = ctx.now
    if work.listing:
        state.index.problems = state.listing.problems()
    where = describe(root.projects, role="sessions", origin=root.origin)
    locations: list[StoreLocation] = [
        where,
        describe(root.tasks, role="tasks", origin=root.origin),
        describe(root.teams, role="teams", origin=root.origin),
        describe(root.sessions, role="status", origin=root.origin),
    ]
    return Discovery(
        locations=tuple(locations), sessions=state.listed, problems=tuple(state.index.problems)
    ), state.index


def index_for(ctx: HarnessContext) -> Index:
    """The latest index, running a discovery pass when there is none yet."""
    state = ctx.cache.get(_STATE_KEY)
    if isinstance(state, _State) and state.key == _key(ctx):
        return state.index
    return discover(ctx)[1]
