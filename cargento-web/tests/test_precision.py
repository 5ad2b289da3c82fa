"""Notification precision, measured: the demo over ten minutes and replayed real hook captures.

The demo runs on an injected clock stepped second by second (ten minutes in a few seconds of
wall time), its scripted hook bodies forwarded into a real :class:`EventHub`, a board built
every two seconds as the live board's timers would, and the hub ticked every second as the
live board's ticker does. Every session's Needs-input spells are read off those boards; the
figure is that each spell that stood past the confirmation delay raised exactly one
notification, inside the spell, and nothing else raised.

The captures (``testdata/captures/full``) are real Claude Code hook payloads, replayed in
order through the forwarders' own slimming on a clock that follows the recording.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import BoardBuilder
from cargento.demo import Demo
from cargento.events.hooks_cmd import declared_targets
from cargento.events.vocabulary import EventVocabulary
from cargento.forwarders.slim import slim_hook_payload
from cargento.plugins import load_registry
from cargento.processes import LocalProcesses
from cargento.testing.testdata import require_captures_root
from cargento_web.runtime.alerts import CONFIRM, Pending
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

CAPTURES = require_captures_root()
CLAUDE_EVENTS = next(
    t.events
    for t in declared_targets(load_registry(env={}), {"HOME": "/nonexistent"}, None)
    if t.name == "claude-events"
)
D = "claude-code-2.1.332/D-tui-permission-ask-compact-exit.jsonl"
C = "claude-code-2.1.332/C-subagents-sync.jsonl"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def test_the_demo_over_ten_minutes_raises_exactly_one_notification_per_real_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The board reuses a clean session's gate answer for a second of *wall* time; stepped
    # faster than that on the injected clock, whether a store-read wait (Copilot's) was read
    # at all would depend on the machine's load. Every build answers afresh here.
    from cargento.board import discovery

    monkeypatch.setattr(discovery, "DERIVED_REUSE_S", 0.0)
    start = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
    clock = Clock(start)
    base = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "real")}
    demo = Demo(load_registry(env=base), base_env=base, clock=clock, interval_s=3600, root=tmp_path)
    demo.start()
    try:
        # As `--demo` serves it: nothing running on this machine speaks for the simulated stores.
        builder = BoardBuilder(
            load_registry(env=demo.env),
            env=demo.env,
            home=demo.home,
            clock=clock,
            processes=LocalProcesses(listing=False),
        )
        notifier = MemoryNotifier()
        hub = EventHub(
            clock=clock,
            state_dir=tmp_path / "state",
            notifier=notifier,
            vocabulary=EventVocabulary.from_registry(builder.registry),
        )
        heard: list[tuple[str, str, str, float]] = []
        hub.alerts.listen(
            lambda item, now: heard.append((item.harness, item.session_id, item.kind, (now - start).total_seconds()))
        )
        demo.forward_events(lambda harness, body: hub.ingest(harness, body))
        spells: dict[tuple[str, str], list[list[float]]] = {}
        open_since: dict[tuple[str, str], float] = {}
        subagents: set[str] = set()
        for second in range(0, 601):
            clock.now = start + timedelta(seconds=second)
            demo.step()
            hub.tick(clock.now)
            if second % 2:
                continue
            board = hub.on_board(builder.build(now=clock.now, overlays=hub.overlays(clock.now)))
            for s in board.sessions:
                subagents.update(a.session_id for a in s.subagents if a.session_id)
                key = (s.harness, s.session_id)
                if s.state == "needs_input":
                    open_since.setdefault(key, second)
                elif key in open_since:
                    spells.setdefault(key, []).append([open_since.pop(key), second])
        for key, since in open_since.items():
            spells.setdefault(key, []).append([since, 601])
        assert hub.alerts.drain()
        raised = [
            (d.harness, d.session_id, (d.raised_at - start).total_seconds())
            for d in hub.deliveries.all()
            if d.kind == "gate"
        ]
        told = [(h, sid, t) for h, sid, kind, t in heard if kind == "gate"]
        real = {key: [s for s in found if s[1] - s[0] > CONFIRM.total_seconds()] for key, found in spells.items()}
        waits = sum(len(found) for found in real.values())
        by_harness = {h: sum(len(f) for (k, _), f in real.items() if k == h) for h, _ in real}
        print(
            f"the demo over ten minutes: {waits} real waits {by_harness}, {len(told)} raised by the precision "
            f"rules, {len(raised)} desktop notifications"
        )
        assert waits >= 4, "the demo opens waits in more than one harness, more than once"
        # The figure: the shared precision rules raise exactly one per real wait, inside it; the
        # reach lane hears exactly these.
        assert len(told) == waits, (told, spells)
        for key, found in real.items():
            at = sorted(t for h, sid, t in told if (h, sid) == key)
            assert len(at) == len(found), (key, at, found)
            for moment, (opened, closed) in zip(at, sorted(found), strict=True):
                assert opened <= moment <= closed, "each raise lies inside its own wait"
        assert not {sid for _, sid, _ in told} & subagents, "no subagent raised anything"
        # The desktop lane pops one per real wait too, inside it, except a wait that opens within
        # the session's cooldown of its last popup (one session asking twice in a minute pops
        # once): its lane-wide floor is shorter than the confirmation delay, so two sessions
        # waiting together are spaced, not dropped.
        from cargento_web.runtime.alerts import GATE_COOLDOWN

        popped = 0
        for key, found in real.items():
            at = sorted(t for h, sid, t in raised if (h, sid) == key)
            expected: list[tuple[float, float]] = []
            for opened, closed in sorted(found):
                last = at[len(expected) - 1] if expected and len(at) >= len(expected) else None
                if last is None or closed - last >= GATE_COOLDOWN.total_seconds():
                    expected.append((opened, closed))  # the cooldown ends inside this wait
            assert len(at) == len(expected), (key, at, found)
            for moment, (opened, closed) in zip(at, expected, strict=True):
                assert opened <= moment <= closed, (key, moment, opened, closed)
            popped += len(expected)
        assert len(raised) == popped and popped < waits, "the demo has a session asking twice within a minute"
        assert len(notifier.sent) == len(raised)
        hub.close()
    finally:
        demo.stop()


# -- replayed real captures -----------------------------------------------------------------


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (CAPTURES / "full" / name).read_text().splitlines() if line.strip()]


class Replay:
    """A hub on the recording's clock, ticked every second between events as the live board
    ticks it."""

    def __init__(self, tmp_path: Path) -> None:
        self.clock = Clock(datetime(2026, 12, 1, tzinfo=UTC))
        self.notifier = MemoryNotifier()
        self.hub = EventHub(
            clock=self.clock, state_dir=tmp_path / "state", notifier=self.notifier, capability="replay-capability"
        )
        self.heard: list[Pending] = []
        self.hub.alerts.listen(lambda item, now: self.heard.append(item))

    def advance(self, to: datetime) -> None:
        while self.clock.now + timedelta(seconds=1) < to:
            self.clock.now += timedelta(seconds=1)
            self.hub.tick(self.clock.now)
        self.clock.now = to

    def play(self, lines: list[dict[str, Any]], until: float | None = None) -> None:
        for line in lines:
            self.advance(datetime.fromtimestamp(line["at"], UTC))
            body = slim_hook_payload(line["payload"])
            if line["event"] == "Notification":
                self.hub.ingest_notification(body)
            elif line["event"] in CLAUDE_EVENTS:
                self.hub.ingest("claude", body)
        if until is not None:
            self.advance(datetime.fromtimestamp(until, UTC))
        assert self.hub.alerts.drain()

    def kinds(self, sid: str) -> list[str]:
        return [d.kind for d in reversed(self.hub.deliveries_for("claude", sid))]


@pytest.fixture
def replay(tmp_path: Path) -> Iterator[Replay]:
    r = Replay(tmp_path)
    yield r
    r.hub.close()


def _first_turn(answer_after_s: float | None) -> list[dict[str, Any]]:
    """D's first turn (a Bash permission prompt): as recorded (it stood 22 s, and Claude sent
    its permission_prompt notification 6 s in), or answered *answer_after_s* seconds after the
    prompt opened, every later event moved up with it (and no notification: Claude sends it
    only once the prompt has stood about six seconds)."""
    lines = _lines(D)
    turn = lines[: next(i for i, line in enumerate(lines) if line["event"] == "Stop") + 1]
    if answer_after_s is None:
        return turn
    opened = next(line["at"] for line in turn if line["event"] == "PermissionRequest")
    answered = next(line["at"] for line in turn if line["event"] == "PostToolBatch")
    shift = answered - (opened + answer_after_s)
    return [
        {**line, "at": line["at"] - shift if line["at"] >= answered else line["at"]}
        for line in turn
        if line["event"] != "Notification"
    ]


def test_a_claude_permission_prompt_answered_in_one_second_raises_nothing(replay: Replay) -> None:
    turn = _first_turn(answer_after_s=1.0)
    replay.play(turn, until=turn[-1]["at"] + 120)
    sid = turn[0]["payload"]["session_id"]
    assert replay.kinds(sid) == []
    assert [p.kind for p in replay.heard] == ["finished"], "only the turn's own end reached the listeners"
    assert replay.hub.alerts.withheld["unconfirmed"] == 1


def test_a_claude_permission_prompt_that_stands_raises_once(replay: Replay) -> None:
    turn = _first_turn(answer_after_s=None)
    replay.play(turn, until=turn[-1]["at"] + 30)
    sid = turn[0]["payload"]["session_id"]
    # PermissionRequest and then Claude's own permission_prompt notification: one wait, one raise.
    assert replay.kinds(sid) == ["gate"]
    (delivery,) = replay.hub.deliveries_for("claude", sid)
    opened = next(line["at"] for line in turn if line["event"] == "PermissionRequest")
    assert (delivery.raised_at - datetime.fromtimestamp(opened, UTC)) >= CONFIRM


def test_the_whole_recorded_session_raises_once_per_wait_and_once_per_idle_nudge(replay: Replay) -> None:
    lines = _lines(D)
    replay.play(lines, until=lines[-1]["at"] + 30)
    sid = lines[0]["payload"]["session_id"]
    assert replay.kinds(sid) == ["gate", "idle", "gate", "idle"]
    # Its two SubagentStops (at compaction) raise nothing; its two own Stops reach the listeners.
    assert [p.kind for p in replay.heard] == ["gate", "finished", "idle", "gate", "finished", "idle"]


def test_a_subagent_stop_raises_nothing(replay: Replay) -> None:
    lines = _lines(C)
    assert [line["event"] for line in lines].count("SubagentStop") == 2
    replay.play(lines, until=lines[-1]["at"] + 30)
    sid = lines[0]["payload"]["session_id"]
    assert replay.kinds(sid) == [], "nothing here is a wait or an idle nudge"
    # C's Stops came 0.1 s before the next prompt and at once before SessionEnd: no finished
    # turn stood long enough to be read, and no subagent's stop counted as one.
    assert replay.heard == []


def test_a_claude_agent_completed_notification_raises_nothing(replay: Replay) -> None:
    lines = _lines(D)[:2]
    sid = lines[0]["payload"]["session_id"]
    replay.play(lines)
    replay.advance(replay.clock.now + timedelta(seconds=3))
    replay.hub.ingest_notification(
        {"session_id": sid, "hook_event_name": "Notification", "notification_type": "agent_completed", "message": "x"}
    )
    replay.advance(replay.clock.now + timedelta(seconds=60))
    assert replay.hub.alerts.drain()
    assert replay.kinds(sid) == [] and replay.heard == []


def _ticked(hub: EventHub, clock: Clock, seconds: int) -> None:
    for _ in range(seconds):
        clock.now += timedelta(seconds=1)
        hub.tick(clock.now)


def _hub(tmp_path: Path, clock: Clock, **kwargs: Any) -> tuple[EventHub, MemoryNotifier]:
    notifier = MemoryNotifier()
    return EventHub(clock=clock, state_dir=tmp_path / "state", notifier=notifier, **kwargs), notifier


def _gate(hub: EventHub, sid: str = "s1") -> None:
    hub.ingest("claude", {"session_id": sid, "hook_event_name": "PermissionRequest", "tool_name": "Bash"})


def test_a_session_a_visible_tab_shows_is_not_also_pinged(tmp_path: Path) -> None:
    clock = Clock(datetime(2026, 12, 1, 12, tzinfo=UTC))
    hub, _notifier = _hub(tmp_path, clock)
    hub.presence.report("tab-aaaaaaaa", True, ("claude", "s1"), clock.now)
    _gate(hub, "s1")
    _gate(hub, "s2")
    _ticked(hub, clock, 6)
    assert hub.alerts.drain()
    assert [d.session_id for d in hub.deliveries.all()] == ["s2"]
    assert hub.alerts.withheld["in-view"] == 1
    hub.close()


def test_a_hidden_tab_showing_the_session_does_not_hold_the_raise(tmp_path: Path) -> None:
    clock = Clock(datetime(2026, 12, 1, 12, tzinfo=UTC))
    hub, _ = _hub(tmp_path, clock)
    hub.presence.report("tab-aaaaaaaa", False, ("claude", "s1"), clock.now)
    _gate(hub)
    _ticked(hub, clock, 6)
    assert hub.alerts.drain() and [d.session_id for d in hub.deliveries.all()] == ["s1"]
    hub.close()


def test_a_wait_answered_while_its_raise_is_being_decided_is_not_raised(tmp_path: Path) -> None:
    # The server's own ticker and an event's tick may retry the same held raise at once, and
    # the wait may be answered between the rules and the announcement: the raise is gone then.
    clock = Clock(datetime(2026, 12, 1, 12, tzinfo=UTC))
    hub, _ = _hub(tmp_path, clock)
    heard: list[str] = []
    hub.alerts.listen(lambda item, now: heard.append(item.session_id))

    def answered_meanwhile(harness: str, session_id: str, now: datetime) -> str | None:
        hub.alerts.forget_kind(harness, session_id, "gate")  # what the answer's event does
        return None

    hub.alerts.screen(answered_meanwhile)
    _gate(hub)
    _ticked(hub, clock, 6)
    assert hub.alerts.drain()
    assert heard == [] and hub.deliveries.all() == (), "a wait answered before its raise went out is not raised"
    hub.close()


def test_a_finished_turn_followed_at_once_by_the_next_prompt_raises_nothing(tmp_path: Path) -> None:
    clock = Clock(datetime(2026, 12, 1, 12, tzinfo=UTC))
    hub, _ = _hub(tmp_path, clock)
    heard: list[str] = []
    hub.alerts.listen(lambda item, now: heard.append(item.kind))
    body: Callable[[str], dict[str, str]] = lambda name: {"session_id": "s1", "hook_event_name": name}  # noqa: E731
    hub.ingest("claude", body("UserPromptSubmit"))
    hub.ingest("claude", body("Stop"))
    _ticked(hub, clock, 2)
    hub.ingest("claude", body("UserPromptSubmit"))
    _ticked(hub, clock, 10)
    assert heard == []
    hub.ingest("claude", body("Stop"))
    _ticked(hub, clock, 10)
    assert heard == ["finished"], "a turn end that stands is heard once"
    hub.close()


def test_quiet_hours_across_midnight_hold_raises_and_deliver_those_still_standing_when_they_end(
    tmp_path: Path,
) -> None:
    from datetime import timezone

    from cargento.quiethours import parse_window

    zone = timezone(timedelta(hours=1))

    def local(day: int, hour: int, minute: int) -> datetime:
        return datetime(2026, 12, day, hour, minute, tzinfo=zone)

    clock = Clock(local(1, 23, 50))
    hub, notifier = _hub(tmp_path, clock, quiet=parse_window("23:30-06:15"), zone=zone)
    heard: list[tuple[str, str]] = []
    hub.alerts.listen(lambda item, now: heard.append((item.session_id, item.kind)))
    _gate(hub, "night")
    _ticked(hub, clock, 6)
    assert hub.raise_question("claude", "asker", "Ship it?") == "raised", "a direct question is never held"
    clock.now = local(2, 0, 30)  # past midnight: still quiet
    _gate(hub, "answered")
    _ticked(hub, clock, 6)
    clock.now = local(2, 1, 0)
    hub.ingest("claude", {"session_id": "answered", "hook_event_name": "PostToolUse", "tool_name": "Bash"})
    clock.now = local(2, 6, 14)
    _gate(hub, "dawn")
    _ticked(hub, clock, 6)
    assert hub.alerts.withheld["quiet"] == 3 and hub.alerts.withheld["quiet-dropped"] == 1
    assert sorted(p.session_id for p in hub.alerts.held_quiet) == ["dawn", "night"], "held, not dropped"
    assert hub.alerts.drain() and [d.session_id for d in hub.deliveries.all()] == ["asker"]
    assert heard == [("asker", "question")], "the reach lane is held the same way"
    # Whoever drives the ticks is told to come back when the window ends, not every second.
    assert hub.next_due(clock.now) == local(2, 6, 15)
    clock.now = local(2, 6, 15)
    hub.tick(clock.now)
    assert sorted(heard[1:]) == [("dawn", "gate"), ("night", "gate")], "the lanes hear both as the window ends"
    _ticked(hub, clock, 20)  # the desktop's 15-second floor spaces the two
    clock.now = local(2, 6, 20)
    _gate(hub, "morning")
    _ticked(hub, clock, 6)
    assert hub.alerts.drain()
    raised = sorted((d.session_id, d.kind) for d in hub.deliveries.all())
    assert raised == [("asker", "question"), ("dawn", "gate"), ("morning", "gate"), ("night", "gate")]
    assert len(notifier.sent) == 4, "the wait answered in the night raised nothing"
    night = next(d for d in hub.deliveries.all() if d.session_id == "night")
    assert night.raised_at == local(2, 6, 15)
    record = hub.session_record("claude", "answered")
    assert [w["rule"] for w in record["withheld"]] == ["quiet-dropped", "quiet-held"]
    assert "the wait was answered before they ended" in record["withheld"][0]["words"]
    assert [w["rule"] for w in hub.session_record("claude", "night")["withheld"]] == ["quiet-released", "quiet-held"]
    hub.close()


def test_a_held_raise_whose_session_ended_or_moved_on_is_dropped_with_that_reason(tmp_path: Path) -> None:
    from cargento.quiethours import parse_window

    clock = Clock(datetime(2026, 12, 1, 23, 40, tzinfo=UTC))
    hub, notifier = _hub(tmp_path, clock, quiet=parse_window("23:30-06:15"), zone=UTC)
    body: Callable[[str, str], dict[str, str]] = lambda sid, name: {"session_id": sid, "hook_event_name": name}  # noqa: E731
    _gate(hub, "ends")
    hub.ingest("claude", body("moves-on", "UserPromptSubmit"))
    hub.ingest("claude", body("moves-on", "Stop"))
    _ticked(hub, clock, 6)
    assert sorted((p.session_id, p.kind) for p in hub.alerts.held_quiet) == [("ends", "gate"), ("moves-on", "finished")]
    hub.ingest("claude", body("ends", "SessionEnd"))
    hub.ingest("claude", body("moves-on", "UserPromptSubmit"))
    assert hub.alerts.held_quiet == ()
    assert hub.next_due(clock.now) is None, "nothing left to wake for"
    clock.now = datetime(2026, 12, 2, 6, 16, tzinfo=UTC)
    hub.tick(clock.now)
    assert hub.alerts.drain() and notifier.sent == [] and hub.deliveries.all() == ()
    (ended, _) = hub.session_record("claude", "ends")["withheld"]
    assert ended["words"] == "held through quiet hours, then dropped: the session ended"
    (moved, _) = hub.session_record("claude", "moves-on")["withheld"]
    assert moved["words"] == "held through quiet hours, then dropped: a new turn started before they ended"
    assert hub.alerts.withheld["quiet-dropped"] == 2
    hub.close()


def test_quiet_hours_hold_is_bounded(tmp_path: Path) -> None:
    from cargento.quiethours import parse_window
    from cargento_web.runtime.alerts import QUIET_HOLD_LIMIT

    clock = Clock(datetime(2026, 12, 1, 23, 40, tzinfo=UTC))
    hub, _ = _hub(tmp_path, clock, quiet=parse_window("23:30-06:15"), zone=UTC)
    for i in range(QUIET_HOLD_LIMIT + 3):
        assert hub.alerts.gate("claude", f"s{i}", "t", "b", clock.now, kind="departure") == "quiet"
    held = hub.alerts.held_quiet
    assert len(held) == QUIET_HOLD_LIMIT and held[0].session_id == "s3", "the oldest went first"
    assert hub.alerts.withheld["quiet-dropped"] == 3
    (dropped,) = hub.alerts.skips_for("claude", "s0")[:1]
    assert dropped.rule == "quiet-dropped" and f"more than {QUIET_HOLD_LIMIT}" in dropped.words
    hub.close()


def test_no_quiet_hours_holds_nothing(tmp_path: Path) -> None:
    from cargento_web.runtime import create_hub

    clock = Clock(datetime(2026, 12, 1, 3, tzinfo=UTC))
    env = {"CARGENTO_HOME": str(tmp_path), "CARGENTO_QUIET_HOURS": "00:00-23:59"}
    held = create_hub(env=env, clock=clock, platform="linux", notifier=MemoryNotifier())
    free = create_hub(env=env, clock=clock, platform="linux", notifier=MemoryNotifier(), no_quiet_hours=True)
    assert held.alerts.quiet is not None and free.alerts.quiet is None
    for hub in (held, free):
        _gate(hub)
    _ticked(held, clock, 0)
    clock.now += timedelta(seconds=6)
    held.tick(clock.now)
    free.tick(clock.now)
    assert held.alerts.drain() and free.alerts.drain()
    assert (len(held.deliveries.all()), len(free.deliveries.all())) == (0, 1)
    held.close()
    free.close()


def test_an_event_only_gate_is_confirmed_with_no_page_and_no_build(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    """Nothing but the live board's ticker runs here: no page, and the gate's event asks for
    one build at most; five seconds later the raise is confirmed on time."""
    import time as wall

    from cargento.testing.fakes import FakeHarness

    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=notifier)
    serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=hub, rescan_s=60)
    _gate(hub, "s1")
    deadline = wall.monotonic() + CONFIRM.total_seconds() + 4
    while wall.monotonic() < deadline and not notifier.sent:
        wall.sleep(0.05)
    assert len(notifier.sent) == 1
    assert hub.alerts.drain()
    (delivery,) = hub.deliveries_for("claude", "s1")
    assert delivery.outcome == "handed-over" and delivery.kind == "gate"
    hub.close()


def test_the_presence_route_takes_a_tabs_report_and_refuses_a_bad_one(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    import httpx
    from cargento.testing.fakes import FakeHarness

    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier())
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=hub)
    own = {"Origin": server.url, "Sec-Fetch-Site": "same-origin"}
    body = {"tab": "tab-12345678", "visible": True, "session": {"harness": "claude", "session_id": "s1"}}
    done = httpx.post(server.url + "/api/presence", json=body, headers=own)
    assert done.status_code == 200 and done.json()["reported"] is True
    assert hub.presence.showing("claude", "s1", hub.clock())
    foreign = httpx.post(server.url + "/api/presence", json=body, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403
    for bad in ({"tab": "x", "visible": True}, {"tab": "tab-12345678", "visible": "yes"}, [1, 2]):
        assert httpx.post(server.url + "/api/presence", json=bad, headers=own).status_code == 400
    hidden = {**body, "visible": False}
    assert httpx.post(server.url + "/api/presence", json=hidden, headers=own).status_code == 200
    assert not hub.presence.showing("claude", "s1", hub.clock())
    hub.close()


def test_quiet_hours_hold_a_tripwire_and_a_departure_too(tmp_path: Path) -> None:
    """The non-urgent raises the cockpit and the observer send (a tripped stage condition, an
    unasked departure) are held in quiet hours like a wait; outside them they raise."""

    from cargento.quiethours import parse_window

    zone = UTC
    clock = Clock(datetime(2026, 12, 1, 23, 40, tzinfo=UTC))
    hub, _notifier = _hub(tmp_path, clock, quiet=parse_window("23:30-06:15"), zone=zone)
    for kind in ("tripwire", "departure"):
        assert hub.alerts.gate("claude", f"q-{kind}", "title", "body", clock.now, kind=kind) == "quiet"
    assert hub.alerts.drain() and hub.deliveries.all() == ()
    clock.now = datetime(2026, 12, 2, 6, 15, tzinfo=UTC)  # the window ends: both still stand
    hub.tick(clock.now)
    assert hub.alerts.drain()
    assert [d.session_id for d in hub.deliveries.all()] == ["q-tripwire"], "the second waits out the floor"
    clock.now += timedelta(seconds=20)
    hub.tick(clock.now)
    for minute, kind in ((0, "tripwire"), (1, "departure")):  # a minute apart: past any floor
        clock.now = datetime(2026, 12, 2, 7, minute, tzinfo=UTC)
        assert hub.alerts.gate("claude", f"d-{kind}", "title", "body", clock.now, kind=kind) == "raised"
    assert hub.alerts.drain()
    assert sorted(d.session_id for d in hub.deliveries.all()) == [
        "d-departure",
        "d-tripwire",
        "q-departure",
        "q-tripwire",
    ]
    hub.close()


def test_the_raise_ticker_sleeps_while_nothing_is_held_and_wakes_for_what_is(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    """Idle cost: with nothing held the ticker judges nothing (it used to wake every second);
    a gate wakes it, and it judges once the confirmation is due rather than every second."""
    import time as wall

    from cargento.testing.fakes import FakeHarness

    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=notifier)
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=hub, rescan_s=60)
    live = server.app.state.live
    wall.sleep(2.5)
    assert live.ticks == 0, "nothing held: the ticker slept"
    _gate(hub, "s1")
    assert hub.next_due() is not None
    deadline = wall.monotonic() + CONFIRM.total_seconds() + 4
    while wall.monotonic() < deadline and not notifier.sent:
        wall.sleep(0.05)
    assert len(notifier.sent) == 1, "the gate was confirmed on time"
    assert 1 <= live.ticks <= 2, f"judged when due, not every second ({live.ticks} judgements)"
    assert hub.next_due() is None
    ticks = live.ticks
    wall.sleep(1.5)
    assert live.ticks == ticks, "asleep again"
    hub.close()


def test_an_event_walks_the_held_raises_only_when_one_is_due(tmp_path: Path) -> None:
    """The event path's cost does not grow with the raises held: with 200 gates confirming,
    each further event neither walks them (the per-event judgement is a look at a bound) nor
    wakes the ticker (a raise held behind an earlier one moves nothing). Once the first falls
    due, the next event judges them, and the first is raised."""
    clock = Clock(datetime(2026, 12, 1, 12, tzinfo=UTC))
    hub, notifier = _hub(tmp_path, clock)
    woken: list[datetime] = []
    hub.alerts.on_schedule(lambda: woken.append(clock.now))
    walked: list[str] = []
    still_wanted = hub._still_wanted

    def counted(item: Pending) -> bool:
        walked.append(item.session_id)
        return still_wanted(item)

    hub._still_wanted = counted  # type: ignore[method-assign]
    _gate(hub, "s0")
    assert woken == [clock.now], "the first raise held wakes the ticker"
    first_due = hub.next_due(clock.now)  # what the woken ticker asks
    assert first_due == clock.now + CONFIRM
    for i in range(1, 200):
        clock.now += timedelta(milliseconds=10)
        _gate(hub, f"s{i}")
    assert len(hub.alerts.pending) == 200
    assert walked == [], f"the held raises were walked {len(walked)} times before any was due"
    assert len(woken) == 1, "a raise held behind an earlier one woke the ticker"
    assert notifier.sent == []

    clock.now = first_due + timedelta(milliseconds=1)
    _gate(hub, "s200")
    assert hub.alerts.drain()
    assert len(notifier.sent) == 1, "the event judged the raise that was due"
    assert len(walked) >= 200, "and, being due, walked what was held"
    hub.close()
