"""Finding sessions: one pass of ``stat`` calls over the store, heads read only when new.

The pass lists ``projects/*/*.jsonl`` (keyed on the full session UUID, the file's stem), the
session folders beside them (legacy subagents), ``tasks/`` (task-only sessions), and
``sessions/<pid>.json`` (verified against the process table once per pass). A transcript's
head is read only when the file changed since its last classification was made, and a
conclusive classification is kept until the file is replaced. The result is an
:class:`Index` kept in the plugin's cache, which the other hooks consult.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.locations import describe
from cargento.models import Discovery, HarnessContext, SessionRef, StoreLocation
from cargento.readers import read_head_records

from cargento_harness_claude import pidfile, tasks
from cargento_harness_claude.locations import VARIABLE, Store, store
from cargento_harness_claude.records import record_type
from cargento_harness_claude.subagents import AgentFile, list_agents
from cargento_harness_claude.teams import Roster, parse_roster
from cargento_harness_claude.transcript import retain

__all__ = ["ACTIVE_S", "Head", "Index", "SessionFiles", "discover", "index_for"]

KEY = "claude"
#: While a session's newest file is this recent, its fingerprint also carries a 15-second
#: clock bucket, so readings that age with the clock (running subagents, rates) refresh.
ACTIVE_S = 660.0
_BUCKET_S = 15
_HEAD_LINES = 50
_HEAD_BYTES = 64 * 1024
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_INDEX_KEY = "index"
_HEADS_KEY = "heads"


@attrs.frozen(kw_only=True)
class Head:
    """What a transcript's first records say about what it is."""

    agent_name: str | None = None
    team_name: str | None = None
    #: A message record was seen in the head.
    has_message: bool = False
    conclusive: bool = False


@attrs.define
class SessionFiles:
    """Everything discovery found that belongs to one session."""

    session_id: str
    transcript: str | None
    project_dir: str | None = None
    session_dir: Path | None = None
    agents: list[AgentFile] = attrs.Factory(list)
    task_folders: list[Path] = attrs.Factory(list)
    head: Head | None = None
    #: A modern teammate transcript's lead session.
    parent_id: str | None = None
    #: Modern teammate transcripts folded into this session.
    children: list[str] = attrs.Factory(list)
    pid: pidfile.PidFile | None = None
    pid_live: bool = False
    mtime: datetime | None = None


@attrs.define
class Index:
    """The latest discovery pass."""

    store: Store
    #: What the store was resolved from: the relocation variable, home and platform.
    key: tuple[str, str, str] = ("", "", "")
    sessions: dict[str, SessionFiles] = attrs.Factory(dict)
    #: Rosters by their lead session id (or, without one, by ``session-<8 hex>`` name).
    rosters: dict[str, Roster] = attrs.Factory(dict)
    problems: list[str] = attrs.Factory(list)

    def roster(self, session_id: str) -> Roster | None:
        """The roster whose lead is *session_id*."""
        return self.rosters.get(session_id) or self.rosters.get(f"session-{session_id[:8]}")


def _key(ctx: HarnessContext) -> tuple[str, str, str]:
    return (ctx.env.get(VARIABLE, ""), str(ctx.home), ctx.platform)


def _mtime(st: os.stat_result) -> datetime:
    return datetime.fromtimestamp(st.st_mtime, UTC)


def _classify(path: str) -> Head:
    try:
        head, conclusive = read_head_records(path, max_lines=_HEAD_LINES, max_bytes=_HEAD_BYTES)
    except OSError:
        return Head()
    agent = team = None
    has_message = False
    for record in head:
        if record_type(record) in ("user", "assistant"):
            has_message = True
        name, group = record.get("agentName"), record.get("teamName")
        if agent is None and isinstance(name, str) and name.strip():
            agent = name.strip()
        if team is None and isinstance(group, str) and group.strip():
            team = group.strip()
    enough = (agent is not None and team is not None) or has_message or len(head) >= _HEAD_LINES
    return Head(agent_name=agent, team_name=team, has_message=has_message, conclusive=conclusive and enough)


def _head(ctx: HarnessContext, path: str, stamp: str) -> Head:
    heads: dict[str, tuple[str, Head]] = ctx.cache.setdefault(_HEADS_KEY, dict)
    known = heads.get(path)
    if known is not None and (known[0] == stamp or known[1].conclusive):
        return known[1]
    head = _classify(path)
    heads[path] = (stamp, head)
    return head


def _transcripts(root: Store, index: Index) -> list[tuple[str, str, os.stat_result, bool]]:
    """``(path, project dir, stat, has session folder)`` of every session transcript."""
    out: list[tuple[str, str, os.stat_result, bool]] = []
    try:
        projects = [e for e in os.scandir(root.projects) if e.is_dir()]
    except OSError as exc:
        if root.projects.exists():
            index.problems.append(f"cannot list {root.projects}: {exc.strerror or exc}")
        return out
    for project in sorted(projects, key=lambda e: e.name):
        try:
            entries = list(os.scandir(project.path))
        except OSError as exc:
            index.problems.append(f"cannot list {project.path}: {exc.strerror or exc}")
            continue
        folders = {e.name for e in entries if e.is_dir()}
        for entry in entries:
            name = entry.name
            if not name.endswith(".jsonl") or name.startswith("agent-") or "-agent-" in name:
                continue
            try:
                st = entry.stat()
            except OSError as exc:
                index.problems.append(f"skipped {entry.path}: {exc.strerror or exc}")
                continue
            out.append((entry.path, project.name, st, name[: -len(".jsonl")] in folders))
    return out


def _resolve_parents(index: Index, teams_root: Path) -> None:
    by_prefix: dict[str, list[SessionFiles]] = {}
    for files in index.sessions.values():
        by_prefix.setdefault(files.session_id[:8], []).append(files)
    for files in index.sessions.values():
        head = files.head
        if head is None or head.agent_name is None or head.team_name is None:
            continue
        parent: SessionFiles | None = None
        if head.team_name.startswith("session-"):
            prefix = head.team_name[len("session-") :]
            candidates = [c for c in by_prefix.get(prefix[:8], []) if c.session_id.startswith(prefix) and c is not files and c.transcript]
            candidates.sort(key=lambda c: (c.project_dir != files.project_dir, -(c.mtime.timestamp() if c.mtime else 0.0)))
            parent = candidates[0] if candidates else None
        else:
            roster = parse_roster(teams_root / head.team_name / "config.json")
            if roster is not None and roster.lead_session_id:
                parent = index.sessions.get(roster.lead_session_id)
        if parent is not None and parent is not files:
            files.parent_id = parent.session_id
            parent.children.append(files.session_id)


def _rosters(ctx: HarnessContext, teams_root: Path, index: Index) -> None:
    """Every ``teams/*/config.json``, parsed once per change of the file."""
    known: dict[str, tuple[str, Roster | None]] = ctx.cache.setdefault("rosters", dict)
    try:
        folders = [e.path for e in os.scandir(teams_root) if e.is_dir()]
    except OSError:
        return
    seen = set()
    for folder in folders:
        path = os.path.join(folder, "config.json")
        try:
            st = os.stat(path)
        except OSError:
            continue  # an older layout without config.json: skipped, not broken
        seen.add(path)
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
        cached = known.get(path)
        roster = cached[1] if cached is not None and cached[0] == stamp else parse_roster(Path(path))
        known[path] = (stamp, roster)
        if roster is not None:
            index.rosters[roster.lead_session_id or os.path.basename(folder)] = roster
    for gone in [p for p in known if p not in seen]:
        del known[gone]


def _fingerprint(ctx: HarnessContext, files: SessionFiles, transcript_stamp: str, newest: datetime | None, roster: Roster | None) -> str:
    parts = [transcript_stamp]
    parts.extend(f"{a.agent_id}={a.stamp}" for a in files.agents)
    parts.append(tasks.stamp(files.task_folders))
    if roster is not None:
        parts.append(f"roster={roster.stamp}")
    if files.pid is not None:
        parts.append(f"pid={files.pid.stamp}:{files.pid_live}")
    if files.children:
        parts.append("children=" + ",".join(sorted(files.children)))
    if newest is not None and (ctx.now - newest).total_seconds() <= ACTIVE_S:
        parts.append(f"t={int(ctx.now.timestamp()) // _BUCKET_S}")
    return "|".join(parts)


def discover(ctx: HarnessContext) -> tuple[Discovery, Index]:
    """One discovery pass: the sessions found, and the index the other hooks consult."""
    root = store(ctx)
    index = Index(store=root, key=_key(ctx))
    where = describe(root.projects, role="sessions", origin=root.origin)
    locations: list[StoreLocation] = [
        where,
        describe(root.tasks, role="tasks", origin=root.origin),
        describe(root.teams, role="teams", origin=root.origin),
        describe(root.sessions, role="status", origin=root.origin),
    ]
    stamps: dict[str, str] = {}
    seen_paths: set[str] = set()
    for path, project, st, has_folder in _transcripts(root, index):
        sid = path.rsplit(os.sep, 1)[-1][: -len(".jsonl")]
        known = index.sessions.get(sid)
        if known is not None and known.mtime is not None and known.mtime >= _mtime(st):
            continue
        stamp = f"{st.st_size}:{st.st_mtime_ns}"
        files = SessionFiles(session_id=sid, transcript=path, project_dir=project, mtime=_mtime(st))
        if has_folder:
            files.session_dir = Path(path[: -len(".jsonl")])
        if ctx.window_s is None or ctx.in_window(files.mtime):
            files.head = _head(ctx, path, stamp)
            seen_paths.add(path)
        index.sessions[sid] = files
        stamps[sid] = stamp
    heads = ctx.cache.get(_HEADS_KEY)
    if isinstance(heads, dict):
        for gone in [p for p in heads if p not in seen_paths]:
            del heads[gone]
    _task_only(root, index)
    for pid_file in pidfile.scan(root.sessions):
        owner = index.sessions.get(pid_file.session_id)
        if owner is None:
            continue
        files = owner
        live = pidfile.verify(pid_file, ctx.processes)
        if files.pid is None or (live and not files.pid_live) or (
            live == files.pid_live and (pid_file.status_at or datetime.min.replace(tzinfo=UTC)) > (files.pid.status_at or datetime.min.replace(tzinfo=UTC))
        ):
            files.pid, files.pid_live = pid_file, live
    _resolve_parents(index, root.teams)
    _rosters(ctx, root.teams, index)
    try:
        task_names = {e.name for e in os.scandir(root.tasks) if e.is_dir()}
    except OSError:
        task_names = set()
    refs = []
    followed_paths: set[str] = set()
    for files in index.sessions.values():
        if files.session_dir is not None:
            files.agents = list_agents(files.session_dir)
        if files.transcript is not None:
            files.task_folders = [root.tasks / n for n in tasks.folder_names(files.session_id) if n in task_names]
            followed_paths.add(files.transcript)
        followed_paths.update(a.path for a in files.agents)
        moments = [m for m in [files.mtime, *(a.mtime for a in files.agents)] if m is not None]
        newest = max(moments) if moments else None
        refs.append(
            SessionRef(
                harness=KEY,
                session_id=files.session_id,
                path=files.transcript or str(files.task_folders[0] if files.task_folders else root.tasks / files.session_id),
                location=where.path,
                modified_at=newest,
                fingerprint=_fingerprint(ctx, files, stamps.get(files.session_id, "tasks"), newest, index.roster(files.session_id)),
            )
        )
    retain(ctx.cache, followed_paths)
    ctx.cache.set(_INDEX_KEY, index)
    return Discovery(locations=tuple(locations), sessions=tuple(refs), problems=tuple(index.problems)), index


def _task_only(root: Store, index: Index) -> None:
    """Task folders whose session has no transcript anywhere surface task-only sessions."""
    try:
        entries = [e for e in os.scandir(root.tasks) if e.is_dir()]
    except OSError:
        return
    for entry in entries:
        name = entry.name
        sid = name[len("session-") :] if name.startswith("session-") else name
        if not _UUID.match(sid) or sid in index.sessions:
            continue
        folders = [f for f in tasks.folders(root.tasks, sid) if f.is_dir()]
        newest: datetime | None = None
        for folder in folders:
            try:
                for task_file in os.scandir(folder):
                    if task_file.name.endswith(".json") and not task_file.name.startswith("."):
                        moment = _mtime(task_file.stat())
                        newest = moment if newest is None or moment > newest else newest
            except OSError:
                continue
        if newest is None:
            continue
        index.sessions[sid] = SessionFiles(session_id=sid, transcript=None, task_folders=folders, mtime=newest)


def index_for(ctx: HarnessContext) -> Index:
    """The latest index, running a discovery pass when there is none yet."""
    index = ctx.cache.get(_INDEX_KEY)
    if isinstance(index, Index) and index.key == _key(ctx):
        return index
    return discover(ctx)[1]
