"""Reading single records: prompts, titles, tools, usage."""

from __future__ import annotations

from typing import Any

from cargento_harness_claude import records as rec
from hypothesis import given
from hypothesis import strategies as st


def _user(content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}, **extra}


def test_human_prompts_and_what_is_not_one() -> None:
    assert rec.human_prompt(_user("fix it")) == "fix it"
    assert rec.human_prompt(_user([{"type": "text", "text": "look"}, {"type": "image"}])) == "look"
    assert rec.human_prompt(_user("fix it", isMeta=True)) is None
    assert rec.human_prompt(_user([{"type": "tool_result", "tool_use_id": "t", "content": "x"}])) is None
    assert rec.human_prompt(_user("<local-command-stdout>ok</local-command-stdout>")) is None
    assert (
        rec.human_prompt(
            _user("<task-notification>done</task-notification>", turnOrigin="task_notification", promptSource="system")
        )
        is None
    )
    assert (
        rec.human_prompt(
            _user('Another Claude session sent a message:\n<teammate-message teammate_id="r">hi</teammate-message>')
        )
        is None
    )
    assert rec.human_prompt(_user([{"type": "text", "text": "[Request interrupted by user]"}])) is None
    assert rec.human_prompt(_user("go", turnOrigin="sdk", promptSource="sdk")) == "go"


def test_prompt_cleaning_for_titles() -> None:
    assert (
        rec.clean_prompt("<command-name>/review</command-name>\n<command-args>PR 12</command-args>") == "/review PR 12"
    )
    assert rec.clean_prompt("read /home/someone/projects/cargento/src/main.py please") == "read main.py please"
    assert rec.clean_prompt("see /tmp/a") == "see /tmp/a"
    assert rec.clean_prompt("  many\n\n lines  ") == "many lines"
    assert len(rec.clean_prompt("word " * 40)) <= 80


def test_tool_display_names() -> None:
    assert rec.tool_display("mcp__linear__list_issues") == "Linear · list issues"
    assert rec.tool_display("mcp__claude-in-chrome__navigate") == "Claude in chrome · navigate"
    assert rec.tool_display("Bash") == "Bash"
    assert rec.tool_display("mcp__broken") == "mcp__broken"


def test_input_summaries() -> None:
    ask = rec.ToolCall(
        id="t", name="AskUserQuestion", input={"questions": [{"question": "Which DB?"}, {"question": "Which port?"}]}
    )
    assert rec.input_summary(ask) == "Which DB? (+1 more)"
    plan = rec.ToolCall(id="t", name="ExitPlanMode", input={"plan": "\n## Plan: migrate the store\n1. step"})
    assert rec.input_summary(plan) == "Plan: migrate the store"
    assert rec.input_summary(rec.ToolCall(id="t", name="ExitPlanMode", input={})) is None


def test_model_and_usage() -> None:
    record = {"type": "assistant", "message": {"id": "m", "model": "<synthetic>", "usage": {"output_tokens": 3}}}
    assert rec.model_of(record) is None
    assert rec.assistant_output(record) == ("m", 3)
    assert rec.assistant_output({"message": {"usage": {"output_tokens": -1}}}) == (None, None)
    assert rec.assistant_output({"message": {"usage": {"output_tokens": True}}}) == (None, None)


ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=15,
)


@given(
    st.dictionaries(
        st.sampled_from(["type", "message", "timestamp", "isMeta", "turnOrigin", "origin", "content"]),
        ANY | st.just("user"),
        max_size=5,
    ),
    st.dictionaries(st.sampled_from(["role", "content", "model", "usage", "id", "stop_reason"]), ANY, max_size=5),
)
def test_record_helpers_never_raise(record: dict[str, Any], message: dict[str, Any]) -> None:
    for candidate in (record, {**record, "message": message}):
        rec.human_prompt(candidate)
        rec.text(candidate)
        list(rec.tool_calls(candidate))
        list(rec.tool_results(candidate))
        rec.model_of(candidate)
        rec.assistant_output(candidate)
        rec.stop_reason(candidate)
        rec.timestamp(candidate)
        rec.is_interruption(candidate)


@given(st.text(max_size=200))
def test_clean_prompt_is_one_bounded_line(text: str) -> None:
    line = rec.clean_prompt(text)
    assert "\n" not in line and len(line) <= 80
