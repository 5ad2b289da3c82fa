"""Parser-level properties: the event fold and the workspace reader take anything without raising."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.testing import make_context
from cargento_harness_copilot.mapping import gate, summary_for
from cargento_harness_copilot.records import SessionSummary, gate_kind
from cargento_harness_copilot.workspace import parse_workspace
from hypothesis import given
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TYPES = [
    "session.start",
    "user.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "session.task_complete",
    "session.shutdown",
    "session.model_change",
    "session.title_changed",
    "tool.execution_start",
    "tool.execution_complete",
    "session.usage_record",
    "assistant.usage",
    "assistant.message",
    "subagent.started",
    "subagent.completed",
    "subagent.failed",
    "permission.requested",
    "permission.completed",
    "abort",
    "session.resume",
    "other",
]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
keys = st.sampled_from(
    [
        "content",
        "context",
        "cwd",
        "startTime",
        "selectedModel",
        "newModel",
        "title",
        "toolName",
        "toolCallId",
        "usage",
        "outputTokens",
        "model",
        "agentId",
        "agentName",
        "agentDisplayName",
        "requestId",
        "permissionRequest",
        "kind",
        "mcpServerName",
    ]
)
data = st.dictionaries(keys, json_values, max_size=6)
records = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES) | json_values, "data": data | json_values},
    optional={
        "timestamp": st.sampled_from(["2026-11-30T11:59:00Z", "2026-11-30T11:59:58.5Z", "garbage", "9999999999999"])
        | json_values,
        "agentId": st.sampled_from(["a1", "a2"]) | json_values,
        "id": json_values,
    },
)


@given(st.lists(records, max_size=30))
def test_fold_never_raises_and_stays_consistent(batch: list[dict[str, Any]]) -> None:
    summary = SessionSummary()
    for record in batch:
        summary.feed(record)
    turn = summary.turn()
    assert turn.state in ("open", "ended", "unknown")
    assert summary.tokens_total >= 0
    summary.instruction()
    summary.thinking()
    summary.last_active(NOW)
    for state in summary.subagents.values():
        state.pill(running=False)
    for permission in summary.permissions.values():
        assert permission.kind in ("command", "url", "permission")


@given(json_values)
def test_gate_kind_is_always_one_of_three(value: object) -> None:
    assert gate_kind(value) in ("command", "url", "permission")


@given(st.text(max_size=400))
def test_workspace_parser_takes_any_text(text: str) -> None:
    parsed = parse_workspace(text)
    assert parsed.user_named in (True, False, None)


def test_workspace_scalars() -> None:
    text = "id: x\ncwd: /w/a b\nname: 'it''s: quoted'\nuser_named: true\n  name: nested\n"
    parsed = parse_workspace(text)
    assert (parsed.name, parsed.user_named, parsed.cwd) == ("it's: quoted", True, "/w/a b")
    assert parse_workspace('name: "tab\\there"\nuser_named: false').name == "tab\there"
    assert parse_workspace("name: |\n  block\n").name is None
    assert parse_workspace("name: plain words # a comment").name == "plain words"


@given(st.binary(max_size=3000))
def test_events_file_of_any_bytes(tmp_path_factory: Any, blob: bytes) -> None:
    home: Path = tmp_path_factory.mktemp("h")
    events = home / "events.jsonl"
    events.write_bytes(blob)
    ctx = make_context(home, now=NOW)
    summary = summary_for(str(events), ctx)
    assert summary.records >= 0
    summary.turn()


def test_gate_needs_the_summary_even_after_cache_eviction(tmp_path: Path) -> None:
    from cargento_harness_copilot.fixtures import CopilotStore

    s = CopilotStore(tmp_path).session(cwd="/w", at=NOW)
    s.prompt("go", at=NOW)
    s.wait(at=NOW)
    from cargento_harness_copilot import plugin

    ctx = make_context(tmp_path, now=NOW.replace(minute=1))
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    fresh = make_context(tmp_path, now=NOW.replace(minute=1))  # a new, empty cache
    got = gate(reading, fresh)
    assert got is not None and got.kind == "command"
