"""The live board over a real server: SSE revisions, the file watcher, coalescing, idling."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento import hookimpl
from cargento.board import BoardBuilder
from cargento.models import Gate
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento.testing.homes import copy_golden
from cargento_web.live import watch_targets
from cargento_web.stream import encode_event

MOMENT = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
CLAUDE_A = "claude-code-2.1.332/A-single-turn"


def events(url: str, *, seconds: float) -> Generator[tuple[str, dict[str, Any]], None, None]:
    """Read SSE events from *url* for at most *seconds*."""
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=httpx.Timeout(5.0)) as client, client.stream("GET", url) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name:
                yield name, json.loads(line[6:])
                name = None
            if time.monotonic() > deadline:
                return


def test_encode_event_is_one_frame() -> None:
    frame = encode_event("board", {"revision": 3, "text": "two\nlines"}, event_id=3)
    assert frame == b'event: board\nid: 3\ndata: {"revision":3,"text":"two\\nlines"}\n\n'
    with pytest.raises(ValueError):
        encode_event("other", {})  # type: ignore[arg-type]


def test_stream_sends_the_revision_then_pings_then_changes(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s1", age_s=5)])
    server = serve(builder_for([("fake", fake)], tmp_path, clock=lambda: MOMENT))
    seen: list[tuple[str, dict[str, Any]]] = []
    for name, data in events(server.url + "/api/stream", seconds=8):
        seen.append((name, data))
        if len(seen) == 2:
            assert [n for n, _ in seen] == ["board", "ping"]
            fake.sessions["s1"].gate = Gate(kind="question", text="Which branch?")
        if name == "board" and len(seen) > 2:
            break
    first, *_, last = seen
    assert first[0] == "board" and last[0] == "board"
    assert last[1]["revision"] == first[1]["revision"] + 1
    doc = httpx.get(server.url + "/api/data").json()
    assert doc["revision"] == last[1]["revision"]
    assert doc["sessions"][0]["state"] == "needs_input"


def test_a_revision_is_published_only_when_content_changed(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s1", age_s=5)])
    # A fixed clock: a fake's ages are relative to it, so nothing in the content moves.
    server = serve(builder_for([("fake", fake)], tmp_path, clock=lambda: MOMENT), rescan_s=0.1, heartbeat_s=0.3)
    names = [name for name, _ in events(server.url + "/api/stream", seconds=2.0)]
    assert server.app.state.live.builds >= 5  # the timer rebuilt many times...
    assert names.count("board") == 1  # ...but the content never changed
    assert names.count("ping") >= 3


def test_no_scanning_while_no_page_is_open(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("s1")])
    server = serve(builder_for([("fake", fake)], tmp_path), rescan_s=0.1)
    live = server.app.state.live
    time.sleep(0.5)
    assert live.builds == 0
    for _ in events(server.url + "/api/stream", seconds=0.6):
        pass
    time.sleep(0.3)  # the server notices the disconnect
    settled = live.builds
    assert settled >= 2
    time.sleep(0.8)
    assert live.builds == settled
    assert live.feeds[False].task is None
    assert live.watching == (frozenset(), frozenset())


def test_watch_targets(builder_for: Any, tmp_path: Path) -> None:
    from cargento.models import Discovery, StoreLocation

    (tmp_path / "store").mkdir()
    (tmp_path / "db.sqlite").write_bytes(b"")
    builder = builder_for([], tmp_path)
    builder.last_discovery = {
        "a": Discovery(locations=(StoreLocation(path=str(tmp_path / "store"), status="present"),)),
        "b": Discovery(locations=(StoreLocation(path=str(tmp_path / "db.sqlite"), status="present"),)),
        "c": Discovery(locations=(StoreLocation(path=str(tmp_path / ".missing" / "deeper"), status="missing"),)),
        "d": Discovery(locations=(StoreLocation(path=str(tmp_path / ".absent"), status="missing"),)),
        "e": Discovery(locations=(StoreLocation(path="/fake", status="present"),)),
    }
    deep, shallow = watch_targets(builder)
    assert deep == {str(tmp_path / "store")}
    assert shallow == {str(tmp_path)}  # the db's folder (for -wal) and the missing root's parent


def _golden_claude(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    home, truth = copy_golden(CLAUDE_A, tmp_path)
    transcript = next((home / ".claude" / "projects").rglob("*.jsonl"))
    ten_min_ago = time.time() - 600
    for path in home.rglob("*"):
        os.utime(path, (ten_min_ago, ten_min_ago))
    return home, transcript, truth


def prompt_record(transcript: Path, text: str) -> dict[str, Any]:
    """A user prompt record shaped like the ones Claude Code 2.1.332 wrote, stamped now."""
    first = json.loads(transcript.read_text().splitlines()[0])
    session = first.get("sessionId") or transcript.stem
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": first.get("cwd", "/srv/lab/repos/claude-a"),
        "sessionId": session,
        "version": "2.1.332",
        "gitBranch": "HEAD",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": f"00000000-0000-4000-8000-{int(time.time() * 1000) % 10**12:012d}",
        "timestamp": now,
    }


def append(path: Path, record: dict[str, Any]) -> None:
    with open(path, "ab") as fh:
        fh.write(json.dumps(record).encode() + b"\n")


def test_a_store_append_is_picked_up_by_the_watcher(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    """The slow timer is an hour here: only the file watcher can notice the append."""
    from cargento_harness_claude import plugin as claude

    home, transcript, _ = _golden_claude(tmp_path)
    server = serve(builder_for([("claude", claude)], home), rescan_s=3600, all_sessions=True)
    stream = events(server.url + "/api/stream", seconds=10)
    name, _ = next(stream)
    assert name == "board"
    doc = httpx.get(server.url + "/api/data").json()
    assert [s["state"] for s in doc["sessions"]] == ["idle"]
    deep, _shallow = server.app.state.live.watching
    assert any(
        Path(p) in (home / ".claude", home / ".claude" / "projects") or home / ".claude" in Path(p).parents
        for p in deep
    )
    append(transcript, prompt_record(transcript, "SCENARIO-A: say hello again"))
    started = time.monotonic()
    for name, _data in stream:
        if name == "board":
            break
    assert time.monotonic() - started < 3
    doc = httpx.get(server.url + "/api/data").json()
    assert [s["state"] for s in doc["sessions"]] == ["working"]
    stream.close()


def test_a_burst_of_writes_is_coalesced(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from cargento_harness_claude import plugin as claude

    home, transcript, _ = _golden_claude(tmp_path)
    server = serve(builder_for([("claude", claude)], home), rescan_s=3600, all_sessions=True, debounce_s=0.25)
    stream = events(server.url + "/api/stream", seconds=10)
    next(stream)
    live = server.app.state.live
    before = live.builds
    for i in range(30):
        append(transcript, prompt_record(transcript, f"burst {i}"))
        time.sleep(0.005)
    for name, _ in stream:
        if name == "board":
            break
    time.sleep(0.8)
    assert 1 <= live.builds - before <= 3
    stream.close()


class _Hub:
    def __init__(self) -> None:
        self.boards: list[Any] = []
        self.callbacks: list[Any] = []
        self.closed = False

    def overlays(self, now: datetime) -> dict[Any, Any]:
        return {}

    def on_board(self, board: Any) -> Any:
        self.boards.append(board)
        return board

    def subscribe(self, callback: Any) -> Any:
        self.callbacks.append(callback)
        return lambda: self.callbacks.remove(callback)

    def close(self) -> None:
        self.closed = True


def test_a_hub_change_builds_once_for_the_hub_with_no_page_open(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    hub = _Hub()
    fake = FakeHarness("fake", [FakeSession("s1")])
    server = serve(builder_for([("fake", fake)], tmp_path), hub=hub, rescan_s=0.1)
    time.sleep(0.3)
    assert hub.boards == [] and len(hub.callbacks) == 1
    for _ in range(5):
        hub.callbacks[0]()  # the hub says its overlays changed (from its own thread)
    deadline = time.monotonic() + 3
    while not hub.boards and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    assert len(hub.boards) == 1  # coalesced, and no timer keeps scanning afterwards
    server.stop()
    assert hub.closed and hub.callbacks == []


class _CountedHarness(FakeHarness):
    """A fake harness that counts its discoveries (an incremental plugin's clock-driven turn)."""

    def __init__(self, key: str, sessions: list[FakeSession]) -> None:
        super().__init__(key, sessions)
        self.discoveries = 0

    @hookimpl
    def discover(self, ctx: Any) -> Any:
        self.discoveries += 1
        return super().discover(ctx)


def test_the_slow_timer_runs_on_a_machine_that_never_goes_quiet(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    """Changes arriving faster than rescan_s (here the hub's, every 40 ms) never left a quiet
    rescan_s to wait out, so a harness nobody writes to was never rediscovered (its rows were
    still re-derived against the clock, by the builder). The slow timer keeps its own time."""
    hub = _Hub()
    quiet = _CountedHarness("quiet", [FakeSession("s1")])
    server = serve(builder_for([("quiet", quiet)], tmp_path), hub=hub, rescan_s=0.3, full_sweep_s=3600)
    stream = events(server.url + "/api/stream", seconds=10)
    assert next(stream)[0] == "board"
    first = quiet.discoveries
    built = len(hub.boards)
    stop = time.monotonic() + 1.6
    while time.monotonic() < stop:
        hub.callbacks[0]()  # the hub says its overlays changed, again and again
        time.sleep(0.04)
    assert len(hub.boards) - built >= 10  # the feed was kept busy the whole time
    assert quiet.discoveries - first >= 3  # and the slow timer still ran every 0.3 s
    stream.close()


def test_a_lone_write_is_built_at_once_not_after_the_debounce(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    """The debounce spaces builds out during a burst; a write after a quiet while does not
    wait it out (it was the whole of the store-write latency's floor)."""
    from cargento_harness_claude import plugin as claude

    home, transcript, _ = _golden_claude(tmp_path)
    server = serve(builder_for([("claude", claude)], home), rescan_s=3600, all_sessions=True, debounce_s=2.0)
    stream = events(server.url + "/api/stream", seconds=10)
    next(stream)
    live = server.app.state.live
    deadline = time.monotonic() + 5
    while not any(live.watching) and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(2.1)  # a quiet while, longer than the debounce, since the first build
    append(transcript, prompt_record(transcript, "SCENARIO-A: a lone write"))
    started = time.monotonic()
    for name, _data in stream:
        if name == "board":
            break
    assert time.monotonic() - started < 1.0
    stream.close()


class _MovesOnEveryBoard:
    """A feature whose share moves on every board it sees (as history or cockpit do when a
    state changes), telling the server from inside on_board."""

    name = "moves"

    def __init__(self) -> None:
        self.tell: Any = None
        self.seen = 0

    def on_board(self, board: Any) -> None:
        self.seen += 1
        self.tell()

    def on_timing(self, kind: str, seconds: float) -> None:
        pass


def test_a_share_moved_inside_on_board_is_stamped_by_that_build_not_built_again(tmp_path: Path) -> None:
    import asyncio

    from cargento_web.extensions import Extensions
    from cargento_web.live import LiveBoard
    from cargento_web.settings import Settings

    feature = _MovesOnEveryBoard()
    extensions = Extensions([feature])  # type: ignore[list-item]
    fake = FakeHarness("fake", [FakeSession("s1")])
    registry = load_registry(entry_points=False, extra=[("fake", fake)])
    builder = BoardBuilder(registry, env={"HOME": str(tmp_path)}, home=tmp_path, processes=StaticProcesses())

    async def run() -> tuple[int, int, int, int]:
        live = LiveBoard(builder, Settings(rescan_s=3600, watch=False), extensions=extensions)
        feature.tell = extensions.changed
        extensions.listen(live.extension_changed)
        async with live.subscribe(False) as queue:
            first = await asyncio.wait_for(queue.get(), 5)
            await asyncio.sleep(0.3)
            builds_after_first = live.builds
            live.extension_changed()  # from outside a build: one more build, a new revision
            second = await asyncio.wait_for(queue.get(), 5)
            await asyncio.sleep(0.3)
            builds = live.builds
        await live.close()
        return first or 0, second or 0, builds_after_first, builds

    first, second, builds_after_first, builds = asyncio.run(run())
    assert builds_after_first == 1, "the share moved inside the build: no second build"
    assert builds == 2 and second > first


def test_invalidations_before_the_loop_takes_one_are_one() -> None:
    from cargento_web.live import LiveBoard
    from cargento_web.settings import Settings

    scheduled: list[Any] = []

    class Loop:
        def is_closed(self) -> bool:
            return False

        def call_soon_threadsafe(self, fn: Any, *args: Any) -> None:
            scheduled.append((fn, args))

    registry = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", []))])
    live = LiveBoard(BoardBuilder(registry, env={}, processes=StaticProcesses()), Settings())
    live._loop = Loop()  # type: ignore[assignment]
    live.invalidate()
    live.invalidate()  # the ingress route's, after the hub's own
    assert len(scheduled) == 1
    fn, args = scheduled[0]
    fn(*args)  # the loop takes it
    live.invalidate()
    assert len(scheduled) == 2


def test_a_request_during_the_first_build_is_answered_by_it(builder_for: Any, tmp_path: Path) -> None:
    """At start the fixed-interval scan (or the hub's kick) begins the first board; a page's
    ``/api/data`` arriving meanwhile gets that board as soon as it exists, not a second build
    queued behind it (which doubled the time to the first answer)."""
    import asyncio

    from cargento_web.live import LiveBoard
    from cargento_web.settings import Settings

    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=5)]))], tmp_path)
    real = builder.build
    builds: list[float] = []

    def slow_build(**kwargs: Any) -> Any:
        builds.append(time.monotonic())
        time.sleep(0.3)
        return real(**kwargs)

    builder.build = slow_build
    live = LiveBoard(builder, Settings(watch=False))

    async def start_then_ask() -> tuple[Any, Any]:
        started = asyncio.get_running_loop().create_task(live._build(live.feed(False)))
        await asyncio.sleep(0.05)  # the first build is under way
        asked = await live.board(False)
        return await started, asked

    first, asked = asyncio.run(start_then_ask())
    assert len(builds) == 1, "the request waited for the running build instead of starting another"
    assert asked.sessions == first.sessions and asked.revision == first.revision
    assert live.feed(False).building is None


def test_a_failed_first_build_reaches_the_request_that_waited_for_it(builder_for: Any, tmp_path: Path) -> None:
    import asyncio

    from cargento_web.live import LiveBoard
    from cargento_web.settings import Settings

    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1")]))], tmp_path)

    def broken_build(**kwargs: Any) -> Any:
        time.sleep(0.2)
        raise RuntimeError("the store vanished")

    builder.build = broken_build
    live = LiveBoard(builder, Settings(watch=False))

    async def start_then_ask() -> str:
        started = asyncio.get_running_loop().create_task(live._build(live.feed(False)))
        await asyncio.sleep(0.05)
        with pytest.raises(RuntimeError, match="vanished"):
            await live.board(False)
        with pytest.raises(RuntimeError):
            await started
        return "done"

    assert asyncio.run(start_then_ask()) == "done"
    assert live.feed(False).building is None


def test_a_request_waiting_on_a_first_build_its_stream_abandoned_is_still_answered(
    builder_for: Any, tmp_path: Path
) -> None:
    """The first build runs in a stream's feed; the stream closes (its task is cancelled) while
    a page's ``/api/data`` waits on that build: the request gets a board of its own, not the
    stream's cancellation (it answered 500)."""
    import asyncio

    from cargento_web.live import LiveBoard
    from cargento_web.settings import Settings

    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=5)]))], tmp_path)
    real = builder.build

    def slow_build(**kwargs: Any) -> Any:
        time.sleep(0.3)
        return real(**kwargs)

    builder.build = slow_build
    live = LiveBoard(builder, Settings(watch=False))

    async def start_abandon_ask() -> Any:
        stream = asyncio.get_running_loop().create_task(live._build(live.feed(False)))
        await asyncio.sleep(0.05)  # the first build is under way
        asked = asyncio.get_running_loop().create_task(live.board(False))
        await asyncio.sleep(0.05)  # the request waits on it
        stream.cancel()
        with pytest.raises(asyncio.CancelledError):
            await stream
        return await asked

    board = asyncio.run(start_abandon_ask())
    assert [s.session_id for s in board.sessions] == ["s1"]


def test_a_build_that_discovered_nothing_sets_no_watches_again(
    serve: Any, builder_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An event's build rediscovers no store, so the watches stand as they were set (setting
    them stats every store root, on the loop, before the revision's frame was written); a
    build that did discover sets them again from what it found."""
    import cargento_web.live as live_module

    calls: list[int] = []
    real = live_module.watch_targets

    def counted(builder: BoardBuilder) -> tuple[frozenset[str], frozenset[str]]:
        calls.append(1)
        return real(builder)

    monkeypatch.setattr(live_module, "watch_targets", counted)
    hub = _Hub()
    fake = FakeHarness("fake", [FakeSession("s1")])
    server = serve(builder_for([("fake", fake)], tmp_path), hub=hub, rescan_s=3600)
    stream = events(server.url + "/api/stream", seconds=10)
    next(stream)
    live = server.app.state.live
    deadline = time.monotonic() + 5
    while not calls and time.monotonic() < deadline:
        time.sleep(0.02)
    assert calls, "the first build set the watches"
    set_once = len(calls)
    for _ in range(3):
        before = live.builds
        hub.callbacks[0]()  # an overlay moved: a build with no store change
        deadline = time.monotonic() + 3
        while live.builds == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert live.builds > before
    time.sleep(0.1)
    assert len(calls) == set_once, "no build since discovered anything"
    # The slow timer's build rediscovers every store: the watches are set from it.
    loop = live._loop
    loop.call_soon_threadsafe(live._mark_dirty, None)
    deadline = time.monotonic() + 3
    while len(calls) == set_once and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(calls) > set_once
    stream.close()
