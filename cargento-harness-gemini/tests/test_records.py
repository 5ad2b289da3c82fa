"""Parser-level property tests: no line shape makes the Gemini CLI parsers raise."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from cargento_harness_gemini.history import history_of
from cargento_harness_gemini.records import header_of, message_facts
from cargento_harness_gemini.transcript import ChatState
from hypothesis import given
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
keys = st.sampled_from(
    [
        "sessionId",
        "id",
        "type",
        "timestamp",
        "content",
        "toolCalls",
        "tokens",
        "model",
        "$set",
        "$rewindTo",
        "directories",
        "kind",
        "displayContent",
    ]
)
tool_calls = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["write_todos", "update_topic", "invoke_agent", "complete_task", "x"]),
            "args": json_values,
            "status": json_values,
            "agentId": json_values,
            "timestamp": json_values,
        }
    ),
    max_size=3,
)
messages = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b", "c"]),
        "type": st.sampled_from(["user", "gemini", "info"]),
        "content": json_values,
        "tokens": json_values,
        "toolCalls": tool_calls | json_values,
        "timestamp": json_values,
    }
)
lines = (
    st.dictionaries(keys, json_values, max_size=5)
    | messages
    | st.fixed_dictionaries({"$set": st.fixed_dictionaries({"messages": st.lists(messages | json_values, max_size=3)})})
    | st.fixed_dictionaries({"$rewindTo": st.sampled_from(["a", "b", "c"]) | json_values})
)


@given(st.lists(lines, max_size=14))
def test_any_lines_fold_and_derive_without_raising(batch: list[dict[str, Any]]) -> None:
    state = ChatState()
    for record in batch:
        header_of(record)
        message_facts(record)
        state.apply(record)
    history = history_of(state)
    assert history.tokens_total >= 0
    assert len(state.messages) <= 3


@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=10), st.integers(0, 50))
def test_each_id_counts_once_however_often_it_is_reappended(ids: list[str], tokens: int) -> None:
    state = ChatState()
    state.apply({"sessionId": "s"})
    for ident in ids:
        state.apply({"id": ident, "type": "gemini", "content": "", "tokens": {"output": tokens}})
    assert history_of(state).tokens_total == tokens * len(set(ids))


def test_a_long_chat_keeps_the_token_events_of_the_last_quarter_hour() -> None:
    # Ten hours of a response every ten seconds: the window's events are kept, not the chat's
    # whole history, and the window's sum and the total stay what every response gives.
    state = ChatState()
    state.apply({"sessionId": "s"})
    start = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    for i in range(3600):
        at = (start + timedelta(seconds=10 * i)).isoformat()
        state.apply({"id": f"m{i}", "type": "gemini", "timestamp": at, "content": "x", "tokens": {"output": 3}})
    history = history_of(state)
    assert len(history.tokens) <= 90 + 64
    assert history.tokens_measured and history.tokens_total == 3 * 3600
    assert history.tokens.in_window(start + timedelta(seconds=10 * 3599)) == 3 * 61


def test_a_long_chat_holds_each_name_once() -> None:
    # The chat keeps every message's facts, so the names they repeat (type, model, tool) are
    # held once, not once per message.
    state = ChatState()
    state.apply({"sessionId": "s"})
    for i in range(200):
        state.apply(  # parsed from its own bytes, as a chat file's lines are
            orjson.loads(
                orjson.dumps(
                    {
                        "id": f"m{i}",
                        "type": "gemini",
                        "model": "gemini-2.5-pro",
                        "content": "x",
                        "toolCalls": [{"name": "run_shell_command", "displayName": "Shell"}],
                    }
                )
            )
        )
    facts = list(state.messages.values())
    assert len(facts) == 200
    for name in ("type", "model"):
        assert len({id(getattr(f, name)) for f in facts}) == 1, name
    assert len({id(t) for f in facts for t in f.tools}) == 1
