"""Reading hook payloads: the recorded shapes, refusals, and fuzzed bodies."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from cargento.events.notifications import classify
from cargento.events.payloads import PayloadError, parse_event, parse_notification
from cargento.events.vocabulary import default_vocabulary
from cargento.testing.testdata import require_captures_root
from hypothesis import given
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

CAPTURES = require_captures_root()


def _full(name: str) -> list[dict[str, Any]]:
    path = CAPTURES / "full" / name
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("harness", "name"),
    [
        ("claude", "claude-code-2.1.332/D-tui-permission-ask-compact-exit.jsonl"),
        ("claude", "claude-code-2.1.332/X-tui-config-model-dirs-cwd-command.jsonl"),
        ("codex", "codex-0.171.0/H-tui-subagent-approval-compact-interrupt-exit.jsonl"),
        ("gemini", "gemini-cli-0.61.0/D-tui-approval-quit.jsonl"),
    ],
)
def test_every_recorded_payload_reads(harness: str, name: str) -> None:
    for line in _full(name):
        event = parse_event(harness, line["payload"], received_at=T0)
        assert event.session_id == line["payload"]["session_id"]


def test_recorded_hook_key_sets_read_as_the_right_kinds() -> None:
    path = CAPTURES / "claude" / "hooks-2.1.222-macos.jsonl"
    for line in path.read_text().splitlines():
        record = json.loads(line)
        body: dict[str, Any] = {k: "x" for k in record["keys"]}
        body.update(session_id="059b71e1-0000-4000-8000-000000000000", hook_event_name=record["event"])
        body.pop("tool_input", None)
        event = parse_event("claude", body, received_at=T0)
        expected = {
            "UserPromptSubmit": "turn_started",
            "Stop": "turn_stopped",
            "PostToolUse": "tool_finished",
            "SessionStart": "session_started",
            "SessionEnd": "session_ended",
            "PreToolUse": "ignored",
        }
        if record["event"] in expected:
            assert event.kind == expected[record["event"]]


def test_unknown_fields_are_ignored_and_unknown_events_make_no_claim() -> None:
    event = parse_event(
        "claude", {"session_id": "a1", "hook_event_name": "MessageDisplay", "delta": "hi", "x": [1]}, received_at=T0
    )
    assert event.kind == "ignored"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"hook_event_name": "Stop"}, 422),
        ({"session_id": "", "hook_event_name": "Stop"}, 422),
        ({"session_id": "has space", "hook_event_name": "Stop"}, 422),
        ({"session_id": 12, "hook_event_name": "Stop"}, 422),
        ({"session_id": "a" * 200, "hook_event_name": "Stop"}, 422),
        ({"session_id": "a1"}, 422),
        ({"session_id": "a1", "hook_event_name": "bad name!"}, 422),
    ],
)
def test_refusals(body: dict[str, Any], status: int) -> None:
    with pytest.raises(PayloadError) as caught:
        parse_event("claude", body, received_at=T0)
    assert caught.value.status == status


def test_unknown_harness_has_no_lane() -> None:
    with pytest.raises(PayloadError) as caught:
        parse_event("copilot", {"session_id": "a", "hook_event_name": "Stop"}, received_at=T0)
    assert caught.value.status == 404
    first_party = {"claude", "codex", "gemini", "antigravity", "opencode", "pi"}
    assert first_party <= set(default_vocabulary().lanes) and "copilot" not in default_vocabulary().lanes


def test_wait_events_need_a_request_id() -> None:
    with pytest.raises(PayloadError):
        parse_event("opencode", {"event": "permission.asked", "session_id": "ses_1"}, received_at=T0)


def test_tool_command_is_kept_bounded_for_the_matcher() -> None:
    event = parse_event(
        "codex",
        {
            "session_id": "t1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "x" * 20000},
        },
        received_at=T0,
    )
    assert event.command is not None and len(event.command) == 8192


def test_notification_session_end_goes_to_the_end_lane() -> None:
    event = parse_notification(
        "claude", {"session_id": "a1", "hook_event_name": "SessionEnd", "reason": "other"}, received_at=T0
    )
    assert event.kind == "session_ended" and event.reason == "other"


def test_gemini_tool_permission_is_a_command_gate_without_the_command() -> None:
    body = {
        "session_id": "g1",
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "message": "Tool Confirm Shell Command requires execution",
        "details": {"type": "exec", "command": "rm -rf /"},
    }
    event = parse_event("gemini", body, received_at=T0)
    assert (
        event.gate_kind == "command"
        and event.gate_text is None
        and event.disposition is not None
        and event.disposition.blocks
    )


def test_status_quota_keeps_only_the_buckets() -> None:
    event = parse_event(
        "antigravity",
        {
            "agent_state": "working",
            "conversation_id": "c1",
            "email": "a@b",
            "quota": {"3p-5h": {"remaining_fraction": 0.5, "reset_time": "t", "x": 1}, "bad": 3},
        },
        received_at=T0,
    )
    assert event.quota == {"3p-5h": {"remaining_fraction": 0.5, "reset_time": "t"}}


@pytest.mark.parametrize(
    ("kind", "message", "action", "clears"),
    [
        ("idle_prompt", None, "idle", True),
        ("idle_timeout", None, "idle", True),
        ("auth_success", None, "informational", False),
        ("agent_completed", None, "informational", True),
        ("elicitation_response", None, "informational", True),
        ("push_notification", None, "informational", False),
        ("permission_prompt", None, "actionable", False),
        ("something_new", None, "actionable", False),
        (None, "Claude is waiting for your input", "idle", True),
        (None, "Claude needs your permission", "actionable", False),
    ],
)
def test_notification_dispositions(kind: str | None, message: str | None, action: str, clears: bool) -> None:
    d = classify(kind, message)
    assert (d.action, d.clears) == (action, clears)
    assert d.blocks == (action == "actionable")
    assert d.pops == (action != "informational")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20,
)
_keys = st.sampled_from(
    [
        "session_id",
        "hook_event_name",
        "event",
        "tool_name",
        "tool_input",
        "prompt_id",
        "turn_id",
        "agent_id",
        "notification_type",
        "message",
        "request_id",
        "agent_state",
        "conversation_id",
        "quota",
        "details",
        "reason",
        "source",
    ]
)


@given(
    harness=st.sampled_from([*sorted(default_vocabulary().lanes), "nope"]),
    body=st.dictionaries(_keys | st.text(max_size=8), _json, max_size=8),
)
def test_fuzzed_bodies_raise_nothing_but_payload_error(harness: str, body: dict[str, Any]) -> None:
    try:
        parse_event(harness, body, received_at=T0)
    except PayloadError as exc:
        assert 400 <= exc.status < 500
    try:
        parse_notification("claude", body, received_at=T0)
    except PayloadError:
        pass


def test_the_old_event_harnesses_name_still_reads_the_declared_adapters() -> None:
    import cargento.events.payloads as payloads

    with pytest.warns(DeprecationWarning):
        adapters = payloads.EVENT_HARNESSES
    assert adapters == default_vocabulary().adapters() and "opencode_plugin.js" in adapters["opencode"]
