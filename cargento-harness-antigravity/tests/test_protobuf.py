"""The bounded protobuf walker and the metadata decoders: never an exception, truncation absent."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.homes import make_context
from cargento_harness_antigravity import plugin
from cargento_harness_antigravity.fixtures import (
    AntigravityStore,
    field_bytes,
    field_varint,
    generation_metadata,
    step_metadata,
    trajectory_metadata,
)
from cargento_harness_antigravity.metadata import model_name, step_facts, trajectory
from cargento_harness_antigravity.protobuf import decode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@given(st.binary(max_size=512))
def test_random_bytes_never_raise(data: bytes) -> None:
    decoded = decode(data)
    assert len(decoded.fields) <= len(data)
    step_facts(1, 15, 3, data)
    trajectory(data, "own")
    model_name(data[-64:])


@given(
    st.lists(st.tuples(st.integers(1, 40), st.integers(0, 2**63)), max_size=10),
    st.lists(st.tuples(st.integers(1, 40), st.binary(max_size=40)), max_size=10),
)
def test_encoded_fields_decode_back(ints: list[tuple[int, int]], blobs: list[tuple[int, bytes]]) -> None:
    data = b"".join(field_varint(n, v) for n, v in ints) + b"".join(field_bytes(n, b) for n, b in blobs)
    decoded = decode(data)
    assert decoded.complete
    assert list(decoded.fields) == [(n, 0, v) for n, v in ints] + [(n, 2, b) for n, b in blobs]


@given(st.data())
def test_a_truncated_field_is_absent_not_an_error(data: st.DataObject) -> None:
    at = NOW - timedelta(seconds=5)
    full = step_metadata(at, output_tokens=321, summary="Ran tests", action="pytest -q")
    cut = data.draw(st.integers(0, len(full) - 1))
    facts = step_facts(7, 15, 3, full[:cut])
    assert facts is not None
    boundaries, offset = {0}, 0
    for number, _, value in decode(full).fields:
        piece = field_varint(number, value) if isinstance(value, int) else field_bytes(number, value)
        offset += len(piece)
        boundaries.add(offset)
    # Cut inside a field: the walk says so; cut between fields: a shorter, whole message.
    assert facts.broken is (cut not in boundaries)
    assert facts.output_tokens in (None, 321)
    assert facts.action in (None, "pytest -q")
    whole = step_facts(7, 15, 3, full)
    assert whole is not None and not whole.broken
    assert (whole.at, whole.output_tokens, whole.summary, whole.action) == (at, 321, "Ran tests", "pytest -q")


def test_trajectory_parent_label_and_own_id_rule() -> None:
    child = trajectory(trajectory_metadata("c", "p", "Research Auditor", "research"), "c")
    assert (child.parent_id, child.role, child.kind) == ("p", "Research Auditor", "research")
    root = trajectory(trajectory_metadata("r", None, None, None), "r")
    assert root.parent_id is None  # field 6 equal to its own id is not a parent
    other = trajectory(field_bytes(6, "elsewhere"), "r")
    assert other.parent_id == "elsewhere"


def test_the_model_name_must_be_framed_at_the_very_end() -> None:
    blob = generation_metadata("Gemini 3.x Flash (High)")
    assert model_name(blob[-64:]) == "Gemini 3.x Flash (High)"
    assert model_name(blob[-64:] + b"\x00") is None  # the frame no longer ends at the blob end
    assert model_name(blob[-64:-1]) is None  # truncated name
    assert model_name(field_bytes(21, "x" * 70)[-64:]) is None  # longer than the bounded read


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(step=st.binary(max_size=200), traj=st.binary(max_size=200), gen=st.binary(max_size=200))
def test_random_blobs_inside_a_real_database_never_raise(step: bytes, traj: bytes, gen: bytes) -> None:
    home = Path(tempfile.mkdtemp())
    try:
        store = AntigravityStore(home)
        conv = store.conversation("c0ffee00-0000", at=NOW - timedelta(seconds=30), model=None, wal_held=True)
        conv.trajectory = traj
        conv.gen.append(gen)
        conv.step(15, step, at=NOW - timedelta(seconds=20))
        conv.respond(at=NOW - timedelta(seconds=10), output_tokens=5)
        ctx = make_context(home, now=NOW)
        (ref,) = plugin.discover(ctx=ctx).sessions
        reading = plugin.read_session(ref=ref, ctx=ctx)
        assert reading is not None
        usage = plugin.usage(reading=reading, ctx=ctx)
        plugin.model(reading=reading, ctx=ctx)
        assert usage is not None and usage.output_tokens_total is not None and usage.output_tokens_total >= 5
    finally:
        shutil.rmtree(home, ignore_errors=True)
