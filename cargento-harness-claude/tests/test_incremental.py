"""Incremental discovery: after any sequence of store changes, a pass told only the changed
paths returns exactly what a full pass over the same store returns, and it reads only what
those paths touch."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from cargento.board import BoardBuilder
from cargento.cache import HarnessCache
from cargento.models import HarnessContext
from cargento.plugins import load_registry
from cargento.processes import ProcessInfo, StaticProcesses
from cargento.testing import make_context
from cargento_harness_claude import discovery, heads, listing, plugin
from cargento_harness_claude.fixtures import ClaudeStore, Session
from cargento_harness_claude.transcript import followed, retain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
DAY = 86400.0
#: Shared eight-character prefixes, so ``session-<prefix>`` teams and task folders collide.
SIDS = [f"{p}-000{i}-4000-8000-00000000000{i}" for p in ("aaaaaaaa", "bbbbbbbb") for i in range(3)]
CWDS = ["/w/a", "/w/b", "/w/c"]
STARTED = T0 - 30 * DAY


def snapshot(root: Path) -> dict[str, tuple[Any, ...]]:
    """What a file watcher would notice: files by identity and content, folders by identity."""
    out: dict[str, tuple[Any, ...]] = {}
    if not root.exists():
        return out
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            path = os.path.join(folder, name)
            out[path] = ("dir", os.stat(path).st_ino)
        for name in files:
            path = os.path.join(folder, name)
            st_ = os.stat(path)
            digest = hashlib.blake2b(Path(path).read_bytes(), digest_size=8).hexdigest()
            out[path] = ("file", st_.st_ino, st_.st_size, st_.st_mtime_ns, digest)
    return out


def changed(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> frozenset[str]:
    return frozenset(p for p in set(before) | set(after) if before.get(p) != after.get(p))


class World:
    """A Claude store that random operations change, with the clock and process table."""

    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.home.mkdir()
        self.attic = tmp / "attic"  # removed things go here, so no inode is reused
        self.attic.mkdir()
        self.store = ClaudeStore(self.home)
        self.root = self.store.root
        for top in ("projects", "tasks", "teams", "sessions"):
            (self.root / top).mkdir(parents=True)
        self.now = T0
        self.tick = 0
        self.moved = 0
        self.processes = StaticProcesses()

    def at(self, offset: float) -> float:
        """A write moment *offset* seconds before now, unique per write."""
        self.tick += 1
        return self.now - offset + self.tick * 0.001

    def session(self, sid: str, cwd: str, team: str | None) -> Session:
        return self.store.session(sid, cwd=cwd, agent_name="mate" if team else None, team_name=team)

    def remove(self, path: Path) -> None:
        if path.exists():
            self.moved += 1
            path.rename(self.attic / f"{self.moved}-{path.name}")

    def transcripts(self) -> list[Path]:
        return sorted(p for p in (self.root / "projects").glob("*/*.jsonl") if p.is_file())

    def apply(self, op: tuple[Any, ...]) -> None:
        kind = op[0]
        sid, cwd = SIDS[op[1] % len(SIDS)], CWDS[op[2] % len(CWDS)]
        offset = [10.0, 300.0, 5000.0, 2 * DAY, -60.0][op[3] % 5]
        team = [None, None, "session-aaaaaaaa", "session-bbbbbbbb", "crew"][op[4] % 5]
        if kind == "write":
            s = self.session(sid, cwd, team)
            for _ in range(op[5] % 3 + 1):
                s.prompt("go", self.at(offset)) if op[5] % 2 else s.tokens(7, self.at(offset))
        elif kind == "meta":
            self.store.metadata_only(sid, cwd=cwd, at=self.at(offset))
        elif kind == "half":
            s = self.session(sid, cwd, team)
            s.append_raw(b'{"type":"user","agentName":"x"', self.at(offset))
        elif kind == "replace":
            found = self.transcripts()
            if found:
                target = found[op[5] % len(found)]
                fresh = self.session(SIDS[op[1] % len(SIDS)], "/w/tmp", team)
                fresh.prompt("again", self.at(offset))
                os.replace(fresh.path, target)
        elif kind == "delete":
            found = self.transcripts()
            if found:
                self.remove(found[op[5] % len(found)])
        elif kind == "agent":
            s = self.session(sid, cwd, None)
            agent = s.subagent(f"a{op[5] % 3}", workflow="run1" if op[4] % 2 else None, at=self.at(offset))
            agent.tokens(5, self.at(offset))
            if op[5] % 4 == 0:
                agent.finish(self.at(offset))
        elif kind == "agent-more":
            # A subagent's transcript grows while nothing else of its session is written.
            found = sorted((self.root / "projects").glob("*/*/subagents/**/agent-*.jsonl"))
            if found:
                target = found[op[5] % len(found)]
                with open(target, "a") as fh:
                    fh.write(json.dumps({"type": "user", "timestamp": "2026-11-30T11:59:00.000Z"}) + "\n")
                stamp = self.at(offset)
                os.utime(target, (stamp, stamp))
        elif kind == "bare-folder":
            # A session folder (tool results only) beside a transcript that is not written.
            (self.store.project_dir(cwd) / sid / "tool-results").mkdir(parents=True, exist_ok=True)
        elif kind == "drop-folder":
            self.remove(self.store.project_dir(cwd) / sid)
        elif kind == "task":
            folder = [sid, f"session-{sid}", f"session-{sid[:8]}"][op[4] % 3]
            self.store.task(sid, str(op[5] % 3), "Work", status="in_progress", at=self.at(offset), folder=folder)
        elif kind == "drop-task":
            folder = [sid, f"session-{sid}", f"session-{sid[:8]}"][op[4] % 3]
            if op[5] % 2:
                self.remove(self.root / "tasks" / folder)
            else:
                self.store.delete_task(sid, str(op[5] % 3), folder=folder)
        elif kind == "team":
            # The implicit team of *sid* (as Claude Code writes it), a named team led by it,
            # or an implicit one whose roster names no lead.
            name, data = [
                (f"session-{sid[:8]}", {"leadSessionId": sid}),
                ("crew", {"leadSessionId": sid}),
                (f"session-{sid[:8]}", {}),
            ][op[4] % 3]
            joined = int(self.at(offset + 100) * 1000)
            path = self.root / "teams" / name / "config.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                json.dumps({"name": name, **data, "members": [{"name": f"mate{op[5] % 2}", "joinedAt": joined}]})
            )
            stamp = self.at(offset)
            os.utime(path, (stamp, stamp))
        elif kind == "drop-team":
            teams = sorted((self.root / "teams").glob("*")) if (self.root / "teams").exists() else []
            if teams:
                self.remove(teams[op[5] % len(teams)])
        elif kind == "pid":
            pid = 100 + op[5] % 3
            if op[4] % 3 == 0:
                self.store.remove_pid_file(pid)
            else:
                s = self.session(sid, cwd, None)
                self.store.pid_file(
                    s,
                    pid,
                    status=["busy", "waiting"][op[4] % 2],
                    at=self.at(offset),
                    started_at=STARTED,
                    waiting_for="permission prompt",
                )
        elif kind == "process":
            pid = 100 + op[5] % 3
            if pid in self.processes.table:
                del self.processes.table[pid]
            else:
                self.processes.table[pid] = ProcessInfo(pid=pid, started_at=STARTED + 0.5, cmdline="claude")
        elif kind == "project":
            if op[5] % 2:
                self.store.project_dir(cwd).mkdir(parents=True, exist_ok=True)
            else:
                self.remove(self.store.project_dir(cwd))
        elif kind == "junk":
            where = [
                self.store.project_dir(cwd) / "agent-x.jsonl",
                self.root / "settings.json",
                self.store.project_dir(cwd) / "notes.txt",
            ][op[5] % 3]
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text("{}\n")
        elif kind == "clock":
            self.now += [30.0, 700.0, 3 * 3600.0, DAY][op[5] % 4]


OPS_KINDS = [
    "write",
    "write",
    "write",
    "meta",
    "half",
    "replace",
    "delete",
    "agent",
    "agent-more",
    "bare-folder",
    "drop-folder",
    "task",
    "drop-task",
    "team",
    "drop-team",
    "pid",
    "process",
    "project",
    "junk",
    "clock",
    "clock",
]
OPS = st.tuples(st.sampled_from(OPS_KINDS), *[st.integers(0, 11)] * 5)


def _both(
    world: World, cache: HarnessCache, paths: frozenset[str] | None, window_s: float | None
) -> tuple[Any, Any, HarnessContext]:
    incremental = attrs.evolve(
        make_context(world.home, now=world.now, window_s=window_s, processes=world.processes, cache=cache),
        changed_paths=paths,
    )
    fresh = make_context(world.home, now=world.now, window_s=window_s, processes=world.processes)
    got, got_index = discovery.discover(incremental)
    want, want_index = discovery.discover(fresh)
    assert got == want
    assert got_index.sessions == want_index.sessions
    assert got_index.rosters == want_index.rosters
    assert got_index.problems == want_index.problems
    return got, want, incremental


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    steps=st.lists(st.lists(OPS, min_size=1, max_size=4), min_size=1, max_size=12), window=st.sampled_from([DAY, None])
)
def test_incremental_discovery_equals_a_full_pass(
    tmp_path_factory: pytest.TempPathFactory, steps: list[list[tuple[Any, ...]]], window: float | None
) -> None:
    world = World(tmp_path_factory.mktemp("inc"))
    cache = HarnessCache()
    _both(world, cache, None, window)
    for batch in steps:
        before = snapshot(world.root)
        for op in batch:
            world.apply(op)
        _both(world, cache, changed(before, snapshot(world.root)), window)


def test_one_append_reads_one_transcript_head_and_lists_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ClaudeStore(tmp_path)
    sessions = []
    for i in range(30):
        s = store.session(f"{i:08x}-0000-4000-8000-000000000000", cwd=f"/w/p{i % 3}")
        s.prompt("go", T0 - (10 if i < 3 else 40 * DAY))
        sessions.append(s)
    cache = HarnessCache()
    ctx = make_context(tmp_path, now=NOW, cache=cache)
    first = plugin.discover(ctx=ctx)
    assert [r.session_id for r in first.sessions] == [s.session_id for s in sessions[:3]], "only the window is listed"
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: Any = ".") -> Any:
        listed.append(_folder_of(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    classified: list[str] = []
    real = heads._classify

    def classifying(path: str) -> tuple[heads.Head, bytes]:
        classified.append(path)
        return real(path)

    monkeypatch.setattr(heads, "_classify", classifying)
    sessions[1].tokens(5, T0 - 5)
    again = plugin.discover(ctx=attrs.evolve(ctx, changed_paths=frozenset({str(sessions[1].path)})))
    assert listed == [], "no folder is listed for one appended transcript"
    assert classified == [], "a final head is not read again"
    assert again.sessions[1].modified_at == datetime.fromtimestamp(T0 - 5, UTC)
    assert again.sessions[0] is first.sessions[0], "untouched refs are kept"
    fresh = plugin.discover(ctx=make_context(tmp_path, now=NOW))
    assert again == fresh


def test_sessions_leave_the_listing_as_the_clock_moves(store: ClaudeStore) -> None:
    old = store.session(SIDS[0])
    old.prompt("go", T0 - DAY + 60)
    new = store.session(SIDS[1])
    new.prompt("go", T0 - 10)
    cache = HarnessCache()
    first = plugin.discover(ctx=make_context(store.home, now=NOW, cache=cache))
    assert [r.session_id for r in first.sessions] == [SIDS[0], SIDS[1]]
    later = attrs.evolve(make_context(store.home, now=T0 + 120, cache=cache), changed_paths=frozenset())
    assert [r.session_id for r in plugin.discover(ctx=later).sessions] == [SIDS[1]]


def test_recent_sessions_refresh_their_clock_bucket_without_changes(store: ClaudeStore) -> None:
    s = store.session(SIDS[0])
    s.prompt("go", T0 - 10)
    cache = HarnessCache()
    [first] = plugin.discover(ctx=make_context(store.home, now=NOW, cache=cache)).sessions
    later = attrs.evolve(make_context(store.home, now=T0 + 30, cache=cache), changed_paths=frozenset())
    [second] = plugin.discover(ctx=later).sessions
    assert first.fingerprint != second.fingerprint, "a running session's reading ages with the clock"
    quiet = attrs.evolve(make_context(store.home, now=T0 + 3600, cache=cache), changed_paths=frozenset())
    [third] = plugin.discover(ctx=quiet).sessions
    [fourth] = plugin.discover(ctx=attrs.evolve(quiet, now=datetime.fromtimestamp(T0 + 3700, UTC))).sessions
    assert third.fingerprint == fourth.fingerprint, "a quiet session's fingerprint stands still"


def test_an_active_sessions_ref_is_made_again_only_when_the_clock_moves_it_on(
    store: ClaudeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One append re-makes its own session's ref: the other active sessions' refs stand until
    their clock bucket ends or they leave ACTIVE_S, and then read as a fresh pass's."""
    for sid in SIDS[:3]:
        store.session(sid).prompt("go", T0 - 10)
    cache = HarnessCache()
    start = (int(T0) // 15) * 15.0  # a bucket's first second
    first = plugin.discover(ctx=make_context(store.home, now=start + 1, cache=cache)).sessions
    made: list[str] = []
    real = discovery._State._ref

    def counting(self: Any, ctx: HarnessContext, files: Any, location: str) -> Any:
        made.append(files.session_id)
        return real(self, ctx, files, location)

    monkeypatch.setattr(discovery._State, "_ref", counting)

    def at(t: float) -> HarnessContext:
        return attrs.evolve(make_context(store.home, now=t, cache=cache), changed_paths=frozenset())

    same_bucket = plugin.discover(ctx=at(start + 9)).sessions
    assert made == [] and same_bucket == first, "inside the bucket nothing is re-made"
    next_bucket = plugin.discover(ctx=at(start + 16)).sessions
    assert sorted(made) == sorted(SIDS[:3]), "the bucket ended: every active ref is made again"
    assert [r.fingerprint for r in next_bucket] != [r.fingerprint for r in first]
    fresh = plugin.discover(ctx=make_context(store.home, now=start + 16)).sessions
    assert next_bucket == fresh
    made.clear()
    plugin.discover(ctx=at(start + 20))
    assert made == []
    # Past ACTIVE_S (prompted at T0 - 10): re-made once without the bucket, then left alone.
    gone_quiet = T0 - 10 + discovery.ACTIVE_S + 1
    quiet = plugin.discover(ctx=at(gone_quiet)).sessions
    assert sorted(made) == sorted(SIDS[:3])
    assert quiet == plugin.discover(ctx=make_context(store.home, now=gone_quiet)).sessions
    made.clear()
    plugin.discover(ctx=at(gone_quiet + 600))
    assert made == [], "a quiet session's ref stands still"


def test_a_change_outside_the_store_folders_needs_no_pass_and_the_top_folder_a_full_one(
    store: ClaudeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = store.session(SIDS[0])
    s.prompt("go", T0 - 10)
    cache = HarnessCache()
    ctx = make_context(store.home, now=NOW, cache=cache)
    plugin.discover(ctx=ctx)
    scans: list[int] = []
    real = discovery._State.full

    def counting(self: Any, ctx: HarnessContext, work: Any) -> None:
        scans.append(1)
        real(self, ctx, work)

    monkeypatch.setattr(discovery._State, "full", counting)
    plugin.discover(ctx=attrs.evolve(ctx, changed_paths=frozenset({str(store.root / "settings.json")})))
    assert scans == []
    shutil.rmtree(store.root / "projects")
    found = plugin.discover(ctx=attrs.evolve(ctx, changed_paths=frozenset({str(store.root / "projects")})))
    assert scans == [1] and found.sessions == ()


def test_a_new_project_folder_is_listed_alone_and_a_removed_transcript_is_let_go(
    store: ClaudeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = store.session(SIDS[0], cwd="/w/a")
    s.prompt("go", T0 - 10)
    cache = HarnessCache()
    ctx = make_context(store.home, now=NOW, cache=cache)
    [ref] = plugin.discover(ctx=ctx).sessions
    assert plugin.read_session(ref=ref, ctx=ctx) is not None
    assert s.path.as_posix() in followed(cache)
    other = store.session(SIDS[1], cwd="/w/b")
    other.prompt("go", T0 - 5)
    listed: list[str] = []
    real_scandir = os.scandir

    def counting(path: Any = ".") -> Any:
        listed.append(_folder_of(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    found = plugin.discover(ctx=attrs.evolve(ctx, changed_paths=frozenset({str(other.path.parent)})))
    assert [r.session_id for r in found.sessions] == [SIDS[0], SIDS[1]]
    assert listed == [str(other.path.parent)], "only the new project folder is listed"
    s.path.unlink()
    found = plugin.discover(ctx=attrs.evolve(ctx, changed_paths=frozenset({str(s.path)})))
    assert [r.session_id for r in found.sessions] == [SIDS[1]]
    assert s.path.as_posix() not in followed(cache), "the followed transcript is let go"


def _folder_of(path: Any) -> str:
    """The folder ``os.scandir`` was asked to list: a path, or a descriptor of the folder (the
    listing lists project folders through one where it can)."""
    if isinstance(path, int):
        return os.readlink(f"/proc/self/fd/{path}")
    return str(path)


@pytest.fixture
def store(tmp_path: Path) -> ClaudeStore:
    return ClaudeStore(tmp_path)


# -- full passes over a kept state -------------------------------------------------------


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    steps=st.lists(st.tuples(st.lists(OPS, min_size=1, max_size=4), st.booleans()), min_size=1, max_size=12),
    window=st.sampled_from([DAY, None]),
)
def test_a_full_pass_over_a_kept_state_equals_a_fresh_one(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[list[tuple[Any, ...]], bool]], window: float | None
) -> None:
    """Full passes (no watcher report) interleaved with watcher passes, each equal to a pass
    of a new state over the same store at the same moment."""
    world = World(tmp_path_factory.mktemp("full"))
    cache = HarnessCache()
    _both(world, cache, None, window)
    for batch, watched in steps:
        before = snapshot(world.root)
        for op in batch:
            world.apply(op)
        _both(world, cache, changed(before, snapshot(world.root)) if watched else None, window)


#: Every kind of change a full pass must notice, then the clock moving sessions out of the window.
SCRIPT: list[tuple[Any, ...]] = [
    ("write", 0, 0, 0, 0, 1),  # a transcript
    ("write", 0, 1, 1, 0, 0),  # the same session id in a second project folder
    ("write", 1, 0, 0, 2, 1),  # a teammate of session-aaaaaaaa
    ("write", 3, 2, 2, 0, 1),
    ("write", 0, 0, 0, 0, 0),  # an append
    ("agent", 2, 1, 0, 0, 1),  # a session folder appearing, with a subagent
    ("agent", 2, 1, 0, 1, 1),  # a second subagent
    ("agent-more", 0, 0, 0, 0, 0),  # a subagent appended to, its session's transcript not
    ("bare-folder", 3, 2, 0, 0, 0),  # a session folder appearing beside an unchanged transcript
    ("task", 4, 0, 0, 0, 1),  # a task folder appearing
    ("task", 4, 0, 0, 0, 2),  # a task file added to it
    ("task", 5, 0, 1, 1, 0),  # a task-only session
    ("team", 0, 0, 0, 0, 0),
    ("pid", 3, 2, 0, 1, 1),
    ("replace", 0, 0, 0, 0, 2),
    ("drop-task", 4, 0, 0, 0, 0),  # a task file gone
    ("drop-task", 5, 0, 1, 1, 1),  # a task folder gone
    ("delete", 0, 0, 0, 0, 0),
    ("drop-folder", 2, 1, 0, 0, 0),
    ("project", 0, 2, 0, 0, 0),  # a whole project folder gone
    ("clock", 0, 0, 0, 0, 1),
    ("clock", 0, 0, 0, 0, 3),  # a day: sessions leave the window
]


@pytest.mark.parametrize("seed", range(6))
def test_each_full_rescan_board_equals_a_fresh_builders_board(tmp_path: Path, seed: int) -> None:
    """A warm builder's full rescan (no watcher report) reads exactly what a new builder does,
    after the scripted changes and then a seeded random sequence of every kind."""
    rng = random.Random(seed)
    world = World(tmp_path)
    registry = load_registry(entry_points=False, extra=[("claude", plugin)])

    def builder() -> BoardBuilder:
        return BoardBuilder(
            registry,
            env={"HOME": str(world.home)},
            home=world.home,
            clock=lambda: datetime.fromtimestamp(world.now, UTC),
            processes=world.processes,
            read_budget_s=None,
        )

    warm = builder()
    warm.build()
    kinds = [k for k in OPS_KINDS if k != "process"]  # the process table is listed on its own clock
    ops = SCRIPT + [(rng.choice(kinds), *(rng.randrange(12) for _ in range(5))) for _ in range(40)]
    compared = 0
    for op in ops:
        world.apply(op)
        if rng.random() < 0.3 and op[0] != "clock":
            continue  # several changes between two rescans
        got, want = warm.build(), builder().build()
        assert (got.counts, got.harnesses, got.sessions) == (want.counts, want.harnesses, want.sessions), op
        compared += 1
    assert compared >= len(SCRIPT) // 2


def test_a_full_pass_over_a_kept_state_derives_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ClaudeStore(tmp_path)
    sessions = []
    for i in range(30):
        s = store.session(f"{i:08x}-0000-4000-8000-000000000000", cwd=f"/w/p{i % 3}")
        s.prompt("go", T0 - (10 if i < 3 else 40 * DAY))
        sessions.append(s)
    cache = HarnessCache()
    ctx = make_context(tmp_path, now=NOW, cache=cache)
    first = plugin.discover(ctx=ctx)
    made: list[str] = []
    real = discovery._State._make

    def making(self: Any, ctx: HarnessContext, sid: str, work: Any) -> Any:
        made.append(sid)
        return real(self, ctx, sid, work)

    monkeypatch.setattr(discovery._State, "_make", making)
    assert plugin.discover(ctx=ctx) == first
    assert made == [], "nothing changed: nothing is derived again"
    sessions[1].tokens(5, T0 - 5)
    sessions[20].tokens(5, T0 - 40 * DAY + 5)
    store.session("ffffffff-0000-4000-8000-000000000000", cwd="/w/p1").prompt("new", T0 - 3)
    (sessions[2].path.with_suffix("") / "tool-results").mkdir(parents=True)
    sessions[4].path.unlink()
    again = plugin.discover(ctx=ctx)
    assert sorted(made) == sorted(
        [
            sessions[1].session_id,
            sessions[20].session_id,
            "ffffffff-0000-4000-8000-000000000000",
            sessions[2].session_id,
            sessions[4].session_id,
        ]
    ), "only the appended, new, removed sessions and the one whose folder appeared"
    assert again == plugin.discover(ctx=make_context(tmp_path, now=NOW))


def test_the_listing_keeps_unchanged_entries_and_names_what_changed(tmp_path: Path) -> None:
    store = ClaudeStore(tmp_path)
    a = store.session(SIDS[0], cwd="/w/a")
    a.prompt("go", T0 - 10)
    b = store.session(SIDS[1], cwd="/w/a")
    b.prompt("go", T0 - 20)
    twin = store.session(SIDS[1], cwd="/w/b")
    twin.prompt("go", T0 - 30)
    found = listing.Listing(str(store.root / "projects"))
    assert found.scan() == {SIDS[0], SIDS[1]}
    kept = found.entries(SIDS[0])["-w-a"]
    assert found.scan() == set(), "a second scan over an unchanged store names nothing"
    assert found.entries(SIDS[0])["-w-a"] is kept
    twin.tokens(3, T0 - 5)
    assert found.scan() == {SIDS[1]}
    winner = found.winner(SIDS[1])
    assert winner is not None and winner.project == "-w-b"
    os.replace(twin.path, tmp_path / "gone.jsonl")
    assert found.scan() == {SIDS[1]}
    winner = found.winner(SIDS[1])
    assert winner is not None and winner.project == "-w-a"
    (a.path.with_suffix("") / "subagents").mkdir(parents=True)
    assert found.scan() == {SIDS[0]}
    assert found.winner(SIDS[0]) is kept and found.has_folder(kept)
    shutil.rmtree(store.project_dir("/w/a"))
    assert found.scan() == {SIDS[0], SIDS[1]}
    assert found.by_sid == {}


def test_a_full_pass_prunes_the_kept_tables_only_after_something_was_derived(
    store: ClaudeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Working out which followed transcripts to keep walks every session of the store: a full
    pass over an unchanged store (pruned by the pass before) skips it, and one after a change
    still lets a removed session's transcript go."""
    sessions = [store.session(SIDS[i], cwd=CWDS[i]) for i in range(2)]
    for s in sessions:
        s.prompt("go", T0 - 10)
    cache = HarnessCache()
    ctx = make_context(store.home, now=NOW, cache=cache)
    for ref in plugin.discover(ctx=ctx).sessions:
        assert plugin.read_session(ref=ref, ctx=ctx) is not None
    prunes: list[int] = []
    real_retain = retain

    def counting(cache: HarnessCache, paths: set[str]) -> None:
        prunes.append(len(paths))
        real_retain(cache, paths)

    monkeypatch.setattr(discovery, "retain", counting)
    plugin.discover(ctx=ctx)
    plugin.discover(ctx=ctx)
    assert prunes == [], "an unchanged store is not walked to prune (reads follow only listed transcripts)"
    sessions[0].path.unlink()
    found = plugin.discover(ctx=ctx)
    assert [r.session_id for r in found.sessions] == [SIDS[1]]
    assert len(prunes) == 1 and sessions[0].path.as_posix() not in followed(cache), "the removed one is let go"
    assert sessions[1].path.as_posix() in followed(cache)
    plugin.discover(ctx=ctx)
    assert len(prunes) == 1
