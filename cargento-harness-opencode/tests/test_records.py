"""JSON columns fuzzed: the parsers and the whole reading take any text without raising."""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_opencode import plugin, records
from cargento_harness_opencode.fixtures import OpenCodeStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
shaped = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["user", "assistant", "system"]) | json_values,
        "type": st.sampled_from(["text", "tool", "file", "step-start"]) | json_values,
        "text": json_values,
        "synthetic": json_values,
        "time": st.fixed_dictionaries({}, optional={"created": json_values, "completed": json_values}) | json_values,
        "tokens": st.fixed_dictionaries({}, optional={"output": json_values}) | json_values,
        "modelID": json_values,
        "finish": json_values,
        "error": json_values,
        "tool": json_values,
        "state": json_values,
        "id": json_values,
    },
)
column = st.one_of(
    shaped.map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)


@given(column, json_values, json_values)
def test_message_parser_takes_anything(raw: str, created: object, updated: object) -> None:
    message = records.parse_message("msg_1", created, updated, raw)
    assert message.role in ("user", "assistant", None)
    assert message.output_tokens is None or message.output_tokens >= 0
    records.prompt_text(raw)
    records.model_id(raw)
    kind, text = records.part_type(raw)
    assert kind is None or isinstance(kind, str)
    assert text is None or isinstance(text, str)


@given(json_values, json_values, json_values, json_values, json_values)
def test_tool_part_parser_takes_anything(
    kind: object, tool: object, status: object, meta: object, start: object
) -> None:
    part = records.tool_part(kind, tool, status, meta, start)
    assert part is None or isinstance(part.tool, str)


def test_prompt_rules() -> None:
    assert records.prompt_text('{"type":"text","text":"hello"}') == "hello"
    assert records.prompt_text('{"type":"text","text":"x","synthetic":true}') is None
    assert records.prompt_text('{"type":"file","filename":"a.txt"}') is None
    assert records.model_id('{"id":"claude-sonnet-4-5","providerID":"anthropic"}') == "claude-sonnet-4-5"
    assert records.model_id("not json") is None


_PRISTINE: dict[str, Path] = {}


def _pristine() -> Path:
    if "home" not in _PRISTINE:
        home = Path(tempfile.mkdtemp(prefix="oc-fuzz-"))
        store = OpenCodeStore(home)
        s = store.session(cwd="/w/proj", at=NOW - timedelta(seconds=60), title="Fuzz")
        s.prompt("hello", at=NOW - timedelta(seconds=50))
        s.reply(at=NOW - timedelta(seconds=49))
        s.tool("bash", at=NOW - timedelta(seconds=40), started=False)
        child = s.subagent("Child", at=NOW - timedelta(seconds=30))
        child.prompt("child", at=NOW - timedelta(seconds=30))
        _PRISTINE["home"] = home
    return _PRISTINE["home"]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(["message", "part", "session_model", "session_title"]),
    column,
)
def test_any_json_column_content_builds_a_board_without_faults(target: str, value: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="oc-fuzz-"))
    try:
        home = work / "home"
        shutil.copytree(_pristine(), home)
        store = OpenCodeStore(home)
        sql = {
            "message": "UPDATE message SET data = ?",
            "part": "UPDATE part SET data = ?",
            "session_model": "UPDATE session SET model = ?",
            "session_title": "UPDATE session SET title = ?",
        }[target]
        store.write(sql, (value,))
        registry = load_registry(entry_points=False, extra=[("opencode", plugin)])
        env = {"HOME": str(home), "XDG_DATA_HOME": str(home / ".local/share")}
        builder = BoardBuilder(registry, env=env, home=home, clock=lambda: NOW, processes=StaticProcesses())
        board = builder.build(all_sessions=True)
        faults = [f for fs in registry.faults.values() for f in fs]
        assert not faults, [(f.hook, f.message, f.traceback) for f in faults]
        assert board.sessions
    finally:
        shutil.rmtree(work, ignore_errors=True)
