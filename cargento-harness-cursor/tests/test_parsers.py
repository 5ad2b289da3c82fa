"""Property tests: the meta, blob and workspace parsers take any bytes and never raise."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from cargento import HarnessError
from cargento.testing import make_context
from cargento_harness_cursor import blobs, plugin, workspace
from cargento_harness_cursor.fixtures import CursorChat, frame
from cargento_harness_cursor.meta import decode_payload, parse_meta
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
payloads = st.dictionaries(
    st.sampled_from(["name", "latestRootBlobId", "createdAt", "subagentInfo", "workspacePath", "cwd", "x"]),
    json_values,
    max_size=7,
)


@given(st.one_of(st.binary(max_size=300), st.text(max_size=300), st.integers(), st.none()))
def test_decode_payload_never_raises(value: object) -> None:
    got = decode_payload(value)
    assert got is None or isinstance(got, dict)


@given(payloads, st.booleans())
def test_any_json_payload_hex_or_plain_parses(payload: dict[str, object], as_hex: bool) -> None:
    text = json.dumps(payload)
    decoded = decode_payload(text.encode().hex() if as_hex else text)
    assert decoded == payload
    meta = parse_meta(decoded)
    assert meta.name is None or isinstance(meta.name, str)


@given(st.binary(max_size=2000))
def test_blob_readers_take_any_bytes(data: bytes) -> None:
    assert isinstance(blobs.pending_gate(data), blobs.PendingGate)
    for complete in (True, False):
        ids = blobs.child_ids(data, complete=complete)
        assert all(len(i) == 64 for i in ids)
    name = blobs.model_name(data)
    assert name is None or isinstance(name, str)
    role = blobs.message_role(data)
    assert role is None or isinstance(role, str)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(["role", "id", "content", "providerOptions"]), _json, max_size=4))
def test_any_json_message_reads_a_model_and_a_role_or_none(message: dict[str, object]) -> None:
    data = json.dumps(message).encode()
    name = blobs.model_name(data)
    assert name is None or (isinstance(name, str) and name == name.strip() and name)
    role = blobs.message_role(data)
    assert role == (message["role"] if isinstance(message.get("role"), str) else None)


@given(st.lists(st.binary(min_size=32, max_size=32), max_size=20), st.binary(max_size=50))
def test_child_ids_are_the_newest_of_the_field_one_list(ids: list[bytes], junk: bytes) -> None:
    root = b"".join(frame(1, i) for i in ids) + frame(2, junk)
    assert blobs.child_ids(root, complete=True) == [i.hex() for i in reversed(ids[-12:])]


@given(
    st.dictionaries(st.text(min_size=1, max_size=8), st.just({"toolCallId": "x"}), max_size=3),
    st.integers(1_600_000_000_000, 2_000_000_000_000),
    st.binary(max_size=20),
)
def test_gate_match_on_framed_bytes(contracts: dict[str, object], stamp: int, noise: bytes) -> None:
    body = json.dumps(
        {
            "providerOptions": {
                "cursor": {"pendingToolCallStartedAtMs": stamp, "pendingToolExecutionContracts": contracts}
            }
        }
    ).encode()
    got = blobs.pending_gate(noise + frame(2, body) + noise)
    assert got.open == bool(contracts)
    if contracts:
        assert got.started_ms == stamp


@given(st.text(max_size=200))
def test_workspace_validation_never_raises(value: str) -> None:
    got = workspace.existing_dir(value)
    assert got is None or isinstance(got, str)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    meta_value=st.one_of(
        st.binary(max_size=200), st.text(max_size=200), payloads.map(lambda p: json.dumps(p).encode().hex())
    ),
    blob=st.binary(max_size=600),
    meta_json=st.binary(max_size=200),
)
def test_store_with_any_meta_and_blob_content_raises_nothing_unexpected(
    tmp_path_factory: object, meta_value: object, blob: bytes, meta_json: bytes
) -> None:
    home = Path(tmp_path_factory.mktemp("h"))  # type: ignore[attr-defined]
    chat = CursorChat(home, workspace=str(home), name="x", created_at=NOW)
    with closing(sqlite3.connect(chat.path)) as conn, conn:
        conn.execute("UPDATE meta SET value = ?", (meta_value,))
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (hashlib.sha256(blob).hexdigest(), blob))
    (chat.dir / "meta.json").write_bytes(meta_json)
    ctx = make_context(home, now=NOW)
    for ref in plugin.discover(ctx=ctx).sessions:
        try:
            reading = plugin.read_session(ref=ref, ctx=ctx)
        except HarnessError:
            continue
        if reading is not None:
            plugin.gate_state(reading=reading, ctx=ctx)
            plugin.model(reading=reading, ctx=ctx)
