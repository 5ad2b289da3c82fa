"""Property tests: Goose rows and messages of any shape parse without raising."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from cargento import HarnessError
from cargento.testing import make_context
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import GooseStore
from cargento_harness_goose.messages import parse_message, summarise, tool_label
from cargento_harness_goose.sessions import normalise_type, parse_row
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
scalars = st.none() | st.integers() | st.floats() | st.text(max_size=30) | st.binary(max_size=30) | st.booleans()
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
sql_values = (
    st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=30)
    | st.binary(max_size=30)
    | st.booleans()
)
nullable = st.none() | sql_values
parts = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "toolRequest", "toolResponse", "thinking", "other"])},
        optional={"text": json_values, "toolCall": json_values, "name": json_values},
    ),
    max_size=4,
)


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "id",
                "name",
                "description",
                "session_type",
                "working_dir",
                "created_at",
                "updated_at",
                "archived_at",
                "parent_session_id",
                "accumulated_output_tokens",
                "newest_message",
            ]
        ),
        scalars,
    )
)
def test_parse_row_never_raises(raw: dict[str, object]) -> None:
    row = parse_row(raw)
    if row is not None:
        assert isinstance(row.fingerprint(), str)


@given(st.text(max_size=20))
def test_normalise_type_is_alphanumeric(value: str) -> None:
    assert normalise_type(value).isalnum() or normalise_type(value) == "user"


@given(
    st.one_of(parts.map(lambda p: json.dumps(p).encode()), st.binary(max_size=300)),
    st.sampled_from(["user", "assistant", "tool", 7, None]),
    scalars,
    scalars,
)
def test_parse_message_never_raises(content: bytes, role: object, stamp: object, metadata: object) -> None:
    raw = {"role": role, "content_json": content, "created_timestamp": stamp, "metadata_json": metadata}
    message = parse_message(raw)
    if message is not None:
        summarise([message])


@given(parts, st.integers(0, 400))
def test_truncated_content_still_tells_a_tool_response_from_a_prompt(items: list[dict[str, object]], cut: int) -> None:
    content = json.dumps(items).encode()
    message = parse_message({"role": "user", "content_json": content[:cut] if cut else content})
    assert message is not None
    if message.prompt is not None:
        assert not message.tool_response


@given(st.text(max_size=40))
def test_tool_label_never_raises(name: str) -> None:
    assert isinstance(tool_label(name), str)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    content=st.one_of(st.binary(max_size=300), parts.map(json.dumps)),
    metadata=nullable,
    stamp=sql_values,
    updated=nullable,
    kind=sql_values,
    ledger_stamp=sql_values,
    tokens=nullable,
)
def test_database_with_any_json_columns_raises_nothing_unexpected(
    tmp_path_factory: object,
    content: object,
    metadata: object,
    stamp: object,
    updated: object,
    kind: object,
    ledger_stamp: object,
    tokens: object,
) -> None:
    home = Path(tmp_path_factory.mktemp("h"))  # type: ignore[attr-defined]
    store = GooseStore(home)
    s = store.session(working_dir="/w/p", created_at=NOW, name="x")
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) "
            "VALUES (?, 'user', ?, ?, ?)",
            (s.id, content, stamp, metadata),
        )
        conn.execute("UPDATE sessions SET updated_at = ?, session_type = ?", (updated, kind))
        conn.execute(
            "INSERT INTO usage_ledger (session_id, output_tokens, created_timestamp) VALUES (?, ?, ?)",
            (s.id, tokens, ledger_stamp),
        )
    ctx = make_context(home, now=NOW)
    for ref in plugin.discover(ctx=ctx).sessions:
        try:
            reading = plugin.read_session(ref=ref, ctx=ctx)
        except HarnessError:
            continue
        if reading is not None:
            usage = plugin.usage(reading=reading, ctx=ctx)
            assert usage is None or (usage.output_tokens_window or 0) >= 0
