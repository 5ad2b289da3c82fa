"""Every precedence rule of the event lane, one test each, through the hub's public surface."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from cargento.board import Waiting
from cargento.events.lanes import GRACE, STATUS_TTL, WORKING_TTL
from cargento.events.payloads import PayloadError
from cargento.models import Subagent
from cargento_web.runtime.hub import EventHub

SID = "0b1e0000-0000-4000-8000-000000000001"


def ev(name: str, sid: str = SID, **fields: Any) -> dict[str, Any]:
    return {"session_id": sid, "hook_event_name": name, "cwd": "/w/proj", **fields}


def state(hub: EventHub, harness: str = "claude", sid: str = SID) -> str | None:
    overlay = hub.overlays(hub.clock()).get((harness, sid))
    return overlay.state if overlay else None


def test_prompt_claims_working_stamped_now_so_it_outranks_store_recency(
    make_hub: Callable[..., EventHub], clock: Any
) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    clock.tick(600)  # a ten-minute tool run: the store reads quiet, the turn has not stopped
    overlay = hub.overlays(clock())[("claude", SID)]
    assert overlay.state == "working" and overlay.at == clock()


def test_stop_claims_idle_marks_turn_ended_and_yields_to_a_later_store_write(
    make_hub: Callable[..., EventHub], clock: Any
) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    clock.tick(5)
    stopped_at = clock()
    hub.ingest("claude", ev("Stop", prompt_id="p1"))
    overlay = hub.overlays(clock())[("claude", SID)]
    assert overlay.state == "idle"
    # Stamped just after the stop: a store write a moment later is the same moment, a write
    # after that (the next prompt from a lane without hooks) wins in core's merge.
    assert overlay.at == stopped_at + GRACE
    assert hub.turn_ended_at("claude", SID) == stopped_at


def test_a_new_prompt_withdraws_the_turn_ended_mark(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("Stop", prompt_id="p1"))
    assert hub.turn_ended_at("claude", SID) is not None
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p2"))
    assert hub.turn_ended_at("claude", SID) is None


def test_idle_nudge_pops_but_never_marks_blocked(make_hub: Callable[..., EventHub], notifier: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("Stop", prompt_id="p1"))
    result = hub.ingest_notification(
        ev("Notification", notification_type="idle_prompt", message="Claude is waiting for your input")
    )
    assert result.state == "idle"
    assert state(hub) == "idle"
    assert hub.alerts.drain() and len(notifier.sent) == 1


@pytest.mark.parametrize(
    "kind", ["auth_success", "agent_completed", "computer_use_enter", "computer_use_exit", "elicitation_complete"]
)
def test_informational_notifications_neither_pop_nor_block(
    make_hub: Callable[..., EventHub], notifier: Any, kind: str
) -> None:
    hub = make_hub()
    hub.ingest_notification(ev("Notification", notification_type=kind, message="something"))
    assert state(hub) is None
    assert hub.alerts.drain() and notifier.sent == []


@pytest.mark.parametrize(
    "kind",
    ["permission_prompt", "elicitation_dialog", "worker_permission_prompt", "agent_needs_input", "brand_new_kind"],
)
def test_actionable_and_unknown_notifications_create_needs_input(
    make_hub: Callable[..., EventHub], notifier: Any, kind: str
) -> None:
    hub = make_hub()
    hub.ingest_notification(
        ev("Notification", notification_type=kind, message="Claude needs your permission to use Bash")
    )
    overlay = hub.overlays(hub.clock())[("claude", SID)]
    assert overlay.state == "needs_input" and overlay.gate is not None
    assert hub.alerts.drain() and len(notifier.sent) == 1


def test_untyped_notification_is_idle_by_its_wording_else_actionable(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest_notification(ev("Notification", message="Claude is waiting for your input"))
    assert state(hub) is None
    hub.ingest_notification(ev("Notification", message="test"))
    assert state(hub) == "needs_input"


def test_permission_request_shows_the_question_not_the_command(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest(
        "claude",
        ev(
            "PermissionRequest",
            tool_name="AskUserQuestion",
            tool_input={"questions": [{"question": "Which database?"}]},
        ),
    )
    gate = hub.overlays(hub.clock())[("claude", SID)].gate
    assert gate is not None and (gate.kind, gate.text) == ("question", "Which database?")
    hub.ingest("claude", ev("PostToolUse", tool_name="AskUserQuestion"))
    hub.ingest(
        "claude", ev("PermissionRequest", tool_name="Bash", tool_input={"command": "rm -rf build", "description": "x"})
    )
    gate = hub.overlays(hub.clock())[("claude", SID)].gate
    assert gate is not None and gate.text == "asking to use Bash" and "rm" not in (gate.text or "")


def test_codex_gate_cannot_say_which(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("codex", ev("PermissionRequest", tool_name="Bash", tool_input={"command": "ls"}, turn_id="t1"))
    gate = hub.overlays(hub.clock())[("codex", SID)].gate
    assert gate is not None and gate.kind == "permission" and gate.text is None


def test_gate_clears_on_the_same_tool_finishing_not_another(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    hub.ingest("claude", ev("PermissionRequest", prompt_id="p1", tool_name="Bash", tool_input={"command": "make"}))
    hub.ingest("claude", ev("PostToolUse", prompt_id="p1", tool_name="Read", tool_input={"file_path": "/a"}))
    assert state(hub) == "needs_input"
    hub.ingest("claude", ev("PostToolUse", prompt_id="p1", tool_name="Bash", tool_input={"command": "make"}))
    assert state(hub) == "working"


def test_gate_clears_on_a_new_prompt_and_on_stop(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("PermissionRequest", tool_name="Bash"))
    hub.ingest("claude", ev("Stop", prompt_id="p1"))
    assert state(hub) == "idle"
    hub.ingest_notification(ev("Notification", notification_type="permission_prompt"))
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p2"))
    assert state(hub) == "working"


def test_gate_clears_on_session_end_and_overlays_are_retired(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("PermissionRequest", tool_name="Bash"))
    hub.ingest("claude", ev("SessionEnd", reason="prompt_input_exit"))
    overlay = hub.overlays(hub.clock())[("claude", SID)]
    assert overlay.state == "idle" and overlay.gate is None and overlay.source == "event:SessionEnd"


def test_gate_clears_on_restart(make_hub: Callable[..., EventHub]) -> None:
    first = make_hub()
    first.ingest_notification(ev("Notification", notification_type="permission_prompt"))
    assert state(first) == "needs_input"
    restarted = make_hub()
    assert state(restarted) is None


def test_gate_clears_on_the_sessions_own_transcript_write(
    make_hub: Callable[..., EventHub], clock: Any, row: Any, board_of: Any
) -> None:
    hub = make_hub()
    hub.ingest_notification(ev("Notification", notification_type="permission_prompt"))
    opened = clock()
    # A write within the grace of the gate is the gate's own record: it stands.
    hub.on_board(board_of(clock.tick(1), row(SID, state="needs_input", last_active_at=opened + timedelta(seconds=1))))
    assert state(hub) == "needs_input"
    hub.on_board(board_of(clock.tick(30), row(SID, state="needs_input", last_active_at=opened + timedelta(seconds=20))))
    assert state(hub) is None


def test_a_subagent_write_does_not_clear_the_gate(
    make_hub: Callable[..., EventHub], clock: Any, row: Any, board_of: Any
) -> None:
    hub = make_hub()
    hub.ingest_notification(ev("Notification", notification_type="permission_prompt"))
    opened = clock()
    sub_write = opened + timedelta(seconds=40)
    helper = Subagent(name="reviewer", running=True, session_id="child-1", last_active_at=sub_write)
    # The parent's last activity is the subagent's write (core folds it in): not its own.
    hub.on_board(board_of(clock.tick(60), row(SID, state="needs_input", last_active_at=sub_write, subagents=(helper,))))
    assert state(hub) == "needs_input"


def test_plugin_waits_stand_until_every_request_is_answered(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("opencode", {"event": "permission.asked", "session_id": "ses_1", "request_id": "per_a"})
    hub.ingest("opencode", {"event": "permission.asked", "session_id": "ses_1", "request_id": "per_b"})
    hub.ingest("opencode", {"event": "permission.replied", "session_id": "ses_1", "request_id": "per_a"})
    assert state(hub, "opencode", "ses_1") == "needs_input"
    hub.ingest("opencode", {"event": "permission.replied", "session_id": "ses_1", "request_id": "per_b"})
    assert state(hub, "opencode", "ses_1") is None


def test_pi_prompt_wait_says_a_prompt_is_open_without_its_title(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest(
        "pi",
        {
            "event": "ui.prompt.opened",
            "session_id": "pi-1",
            "request_id": "r1",
            "prompt_kind": "confirm",
            "title": "Delete?",
        },
    )
    gate = hub.overlays(hub.clock())[("pi", "pi-1")].gate
    assert gate is not None and "confirm" in (gate.text or "") and "Delete" not in (gate.text or "")
    hub.ingest("pi", {"event": "ui.prompt.closed", "session_id": "pi-1", "request_id": "r1"})
    assert state(hub, "pi", "pi-1") is None


def test_events_of_a_stopped_prompt_arriving_late_claim_nothing(make_hub: Callable[..., EventHub]) -> None:
    # Async Claude hooks can land out of order: Stop before the PostToolUse of its own turn.
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    hub.ingest("claude", ev("Stop", prompt_id="p1"))
    hub.ingest("claude", ev("PostToolUse", prompt_id="p1", tool_name="Bash"))
    assert state(hub) == "idle"
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    assert state(hub) == "idle"


def test_a_subagents_own_events_make_no_claim_on_the_parent(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("codex", ev("Stop", turn_id="t1"))
    result = hub.ingest("codex", ev("UserPromptSubmit", turn_id="t2", agent_id="019f-child", agent_type="default"))
    assert result.effect.startswith("subagent activity")
    assert state(hub, "codex") == "idle"


def test_subagent_sessions_never_pop(make_hub: Callable[..., EventHub], notifier: Any) -> None:
    hub = make_hub()
    child = "01a22b86-c664-78b0-a87c-ec6443418e0b"
    hub.ingest("codex", ev("SubagentStart", agent_id=child, agent_type="default"))
    hub.ingest("codex", ev("PermissionRequest", sid=child, tool_name="Bash"))
    assert state(hub, "codex", child) == "needs_input"
    assert hub.alerts.drain() and notifier.sent == []


def test_a_working_claim_lapses_without_events(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    clock.tick(WORKING_TTL.total_seconds() - 1)
    assert state(hub) == "working"
    clock.tick(2)
    assert state(hub) is None


def test_antigravity_status_line_working_carries_a_deadline(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    conv = "4c1d0000-0000-4000-8000-000000000002"
    hub.ingest("antigravity", {"agent_state": "working", "conversation_id": conv, "session_id": conv})
    assert state(hub, "antigravity", conv) == "working"
    clock.tick(STATUS_TTL.total_seconds() + 1)
    assert state(hub, "antigravity", conv) is None


def test_antigravity_idle_after_working_is_a_turn_end_and_tool_confirmation_is_not_needs_input(
    make_hub: Callable[..., EventHub],
) -> None:
    hub = make_hub()
    conv = "4c1d0000-0000-4000-8000-000000000003"
    hub.ingest("antigravity", {"agent_state": "tool_use", "conversation_id": conv, "confirmation_pending": True})
    assert state(hub, "antigravity", conv) == "working"
    hub.ingest("antigravity", {"agent_state": "idle", "conversation_id": conv})
    assert state(hub, "antigravity", conv) == "idle"
    assert hub.turn_ended_at("antigravity", conv) is not None


def test_antigravity_push_without_a_conversation_carries_quota_only(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    quota = {"gemini-5h": {"remaining_fraction": 0.82, "reset_time": "2026-08-01T15:00:00Z"}}
    result = hub.ingest("antigravity", {"agent_state": "idle", "conversation_id": "", "email": "a@b.c", "quota": quota})
    assert result.state is None and hub.overlays(hub.clock()) == {}
    pushed = hub.pushed_quota("antigravity")
    assert pushed is not None and pushed[1] == quota


def test_antigravity_plugin_hooks_only_ask_for_a_rescan(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    calls: list[int] = []
    hub.subscribe(lambda: calls.append(1))
    result = hub.ingest("antigravity", {"hook_event_name": "PostInvocation", "session_id": "4c1d"})
    assert result.changed and calls == [1]
    assert hub.overlays(hub.clock()) == {}


def test_overrule_of_a_session_read_as_waiting_is_recorded(
    make_hub: Callable[..., EventHub], clock: Any, row: Any, board_of: Any
) -> None:
    hub = make_hub()
    waiting = Waiting(kind="question", text="Which?", since=clock(), source="store")
    hub.on_board(board_of(clock(), row(SID, state="needs_input", waiting=waiting, state_source="store")))
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p9"))
    record = hub.diagnostics()["overrules"]
    assert len(record) == 1 and record[0]["read_source"] == "store" and record[0]["asserted"] == "working"


def test_diagnostics_list_arrival_order_and_timings(make_hub: Callable[..., EventHub], clock: Any) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"), hook_at=clock() - timedelta(milliseconds=40))
    clock.tick(2)
    hub.ingest("claude", ev("PostToolUse", prompt_id="p1", tool_name="Read"))
    doc = hub.diagnostics()
    events = doc["lanes"][0]["events"]
    assert [e["seq"] for e in events] == [1, 2]
    assert events[0]["delivery_ms"] == 40.0 and events[1]["age_s"] == 0.0
    assert doc["overlays"][0]["state"] == "working"


def test_no_events_mode_accepts_nothing_and_publishes_no_capability(
    make_hub: Callable[..., EventHub], tmp_path: Any
) -> None:
    hub = make_hub(events=False)
    assert hub.capability is None and hub.routes(object()) == []
    with pytest.raises(PayloadError):
        hub.ingest("claude", ev("UserPromptSubmit"))
    assert hub.overlays(hub.clock()) == {}
    assert not (tmp_path / "state" / "cargento-ends.json").exists()


def test_a_subagents_permission_prompt_is_the_parents_gate_until_its_tool_runs(
    make_hub: Callable[..., EventHub],
) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("UserPromptSubmit", prompt_id="p1"))
    hub.ingest(
        "claude",
        ev("PermissionRequest", tool_name="Bash", agent_id="ae52288e7e5ce317e", tool_input={"command": "make"}),
    )
    assert state(hub) == "needs_input"
    hub.ingest("claude", ev("PostToolUse", tool_name="Bash", tool_input={"command": "make"}))
    assert state(hub) == "needs_input", "the parent's own tool run does not answer the subagent's prompt"
    hub.ingest(
        "claude", ev("PostToolUse", tool_name="Bash", agent_id="ae52288e7e5ce317e", tool_input={"command": "make"})
    )
    assert state(hub) == "working"


def test_a_subagent_stopping_clears_its_own_gate(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    hub.ingest("claude", ev("PermissionRequest", tool_name="Bash", agent_id="a1"))
    hub.ingest("claude", ev("SubagentStop", agent_id="a2", agent_type="Explore"))
    assert state(hub) == "needs_input"
    hub.ingest("claude", ev("SubagentStop", agent_id="a1", agent_type="general-purpose"))
    assert state(hub) != "needs_input"
