"""Needs input from the store: pending input tools, the pid-file status, the teams roster."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs
from cargento.processes import ProcessInfo, StaticProcesses
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
SID = "11111111-1111-4111-8111-111111111111"
STARTED = T0 - 3600


def _live(pid: int = 4242) -> StaticProcesses:
    return StaticProcesses({pid: ProcessInfo(pid=pid, started_at=STARTED + 0.4, cmdline="claude")})


def test_pending_question_is_needs_input_with_the_question(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("pick a db", T0 - 600)
    s.wait("Which database?", T0 - 500, more=["Which port?"])
    [row] = board(store.home).sessions
    assert row.state == "needs_input"
    assert row.waiting.kind == "question" and row.waiting.text == "Which database? (+1 more)"
    assert row.waiting.source == "transcript"


def test_answered_question_clears(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("pick a db", T0 - 600)
    call = s.wait("Which database?", T0 - 500)
    s.answer(call, T0 - 400)
    [row] = board(store.home).sessions
    assert row.waiting is None and row.state == "idle"


def test_pending_plan_shows_its_first_line(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("plan it", T0 - 60)
    s.plan("# Migrate the store\n\n1. copy", T0 - 50)
    [row] = board(store.home).sessions
    assert row.waiting.kind == "plan" and row.waiting.text == "Migrate the store"


def test_live_waiting_status_outranks_a_quiet_transcript(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("run it", T0 - 600)
    s.tool("Bash", T0 - 590, input={"command": "make deploy"})
    store.pid_file(s, 4242, status="waiting", waiting_for="permission prompt", at=T0 - 589, started_at=STARTED)
    [row] = board(store.home, processes=_live()).sessions
    assert row.state == "needs_input"
    assert row.waiting.text == "permission prompt · Bash: make deploy"
    [idle_row] = board(store.home).sessions
    assert idle_row.state == "idle" and idle_row.waiting is None, "without the live process nothing is claimed"


def test_live_idle_status_ends_the_turn_at_once(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 20)
    s.tokens(30, T0 - 10)
    [before] = board(store.home).sessions
    assert before.state == "working"
    store.pid_file(s, 4242, status="idle", at=T0 - 9, started_at=STARTED)
    [after] = board(store.home, processes=_live()).sessions
    assert after.state == "idle"


def test_live_busy_status_is_working_past_the_recency_window(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("long build", T0 - 900)
    s.tool("Bash", T0 - 890, input={"command": "make all"})
    store.pid_file(s, 4242, status="busy", at=T0 - 900, started_at=STARTED)
    [row] = board(store.home, processes=_live()).sessions
    assert row.state == "working"
    assert row.turn is not None and row.turn.elapsed_s >= 890
    [quiet] = board(store.home).sessions
    assert quiet.state == "idle"


def test_a_status_older_than_the_transcript_is_superseded(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 60)
    call = s.wait("Which?", T0 - 50)
    store.pid_file(s, 4242, status="waiting", waiting_for="input needed", at=T0 - 49, started_at=STARTED)
    s.answer(call, T0 - 20)
    s.tokens(10, T0 - 10)
    [row] = board(store.home, processes=_live()).sessions
    assert row.waiting is None and row.state == "working"


def test_roster_member_without_transcript_after_grace(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID)
    lead.prompt("start two teammates", T0 - 300)
    lead.end_turn(T0 - 290)
    store.team(lead, [("reviewer", T0 - 280), ("tester", T0 - 30)], at=T0 - 30)
    [row] = board(store.home).sessions
    assert row.state == "needs_input"
    assert row.waiting.kind == "roster" and row.waiting.text.startswith("reviewer has not started")
    assert "tester" not in row.waiting.text, "still inside its start grace"


def test_roster_member_with_a_transcript_or_stopped_is_no_wait(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID)
    lead.prompt("start teammates", T0 - 300)
    lead.end_turn(T0 - 290)
    store.team(lead, [("reviewer", T0 - 280), ("tester", T0 - 280), ("gone", T0 - 280)], inactive=["gone"], at=T0 - 280)
    mate = lead.subagent("areviewer-0123", name="reviewer", team_name=f"session-{SID[:8]}", at=T0 - 270)
    mate.prompt("review", T0 - 270)
    mate.end_turn(T0 - 260)
    other = store.session("22222222-2222-4222-8222-222222222222", agent_name="tester", team_name=f"session-{SID[:8]}")
    other.prompt("test", T0 - 270)
    other.end_turn(T0 - 265)
    [row] = board(store.home).sessions
    assert row.waiting is None and row.state == "idle"


def test_roster_outside_the_window_claims_nothing(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID)
    lead.prompt("start", T0 - 3 * 86400)
    store.team(lead, [("reviewer", T0 - 3 * 86400)], at=T0 - 3 * 86400)
    from cargento.testing import make_context
    from cargento_harness_claude import plugin

    ctx = make_context(store.home, now=NOW, window_s=86400.0)
    assert plugin.discover(ctx=ctx).sessions == (), "outside the window: not listed at all"
    everything = attrs.evolve(ctx, window_s=None)
    [ref] = plugin.discover(ctx=everything).sessions
    reading = plugin.read_session(ref=ref, ctx=everything)
    assert reading is not None
    assert plugin.gate_state(reading=reading, ctx=ctx) is None, "read anyway, the roster claims nothing"
    assert plugin.gate_state(reading=reading, ctx=everything) is not None
