"""Subagents in the session folder, workflow runs, teammates' own subagents."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
SID = "11111111-1111-4111-8111-111111111111"


def test_running_quiet_and_finished_subagents(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID)
    lead.prompt("fan out", T0 - 4000)
    lead.tool("Agent", T0 - 3990)
    busy = lead.subagent("abusy", agent_type="Explore", description="Explore the repo", at=T0 - 30)
    busy.prompt("look", T0 - 3980)
    busy.tokens(60, T0 - 30)
    done = lead.subagent("adone", description="Greet", at=T0 - 3000)
    done.prompt("hi", T0 - 3010)
    done.tokens(5, T0 - 3000)
    done.finish(T0 - 3000)
    quiet = lead.subagent("aquiet", agent_type="general-purpose", at=T0 - 2000)
    quiet.prompt("x", T0 - 2000)
    flow = lead.subagent("aflow", description="Fan-out worker", workflow="run-7", at=T0 - 10)
    flow.prompt("work", T0 - 10)
    [row] = board(store.home).sessions
    pills = {p.name: p for p in row.subagents}
    assert set(pills) == {"Explore the repo", "Greet", "general-purpose", "Fan-out worker"}
    assert pills["Explore the repo"].running and pills["Explore the repo"].role == "Explore"
    assert pills["Explore the repo"].output_tokens_per_min == 6.0
    assert not pills["Greet"].running and not pills["general-purpose"].running
    assert pills["Fan-out worker"].running
    assert row.state == "working", "a session parked on a background workflow reads Working"
    assert row.detail.startswith("running 2 subagents")


def test_quiet_subagent_leaves_after_the_display_window(store: ClaudeStore, read_all: Any) -> None:
    lead = store.session(SID)
    lead.prompt("go", T0 - 60)
    old = lead.subagent("aold", description="Old", at=T0 - 3 * 86400)
    old.prompt("x", T0 - 3 * 86400)
    [read] = read_all(store.home, window_s=86400.0).values()
    assert read.reading.subagents == ()


def test_teammate_keeps_its_row_and_its_own_subagents_attributed(store: ClaudeStore, board: Any) -> None:
    lead = store.session(SID)
    lead.prompt("team up", T0 - 600)
    lead.end_turn(T0 - 590)
    mate = store.session("22222222-2222-4222-8222-222222222222", agent_name="reviewer", team_name=f"session-{SID[:8]}")
    mate.prompt("review", T0 - 580)
    mate.end_turn(T0 - 500)
    helper = mate.subagent("ahelper", description="Check types", at=T0 - 20)
    helper.prompt("mypy", T0 - 20)
    [row] = board(store.home).sessions
    pills = {p.name: p for p in row.subagents}
    assert not pills["reviewer"].running, "a quiet teammate stays listed, no longer running"
    assert pills["Check types"].spawned_by == "reviewer" and pills["Check types"].running
