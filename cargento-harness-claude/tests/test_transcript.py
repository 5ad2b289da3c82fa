"""The transcript fold: incremental, bounded, exact about tokens, turns and partial reads."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from cargento.cache import HarnessCache
from cargento.testing.strategies import damaged
from cargento_harness_claude.fixtures import ClaudeStore
from cargento_harness_claude.transcript import Summary, Transcript, follow, followed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC).timestamp()


def _fold(path: Path) -> Summary:
    summary = Summary()
    for line in path.read_bytes().splitlines():
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict):
            summary.feed(record)
    return summary


def test_output_tokens_counted_once_per_response(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("go", T0)
    s.respond(T0 + 1, text="two blocks", tools=[("Bash", {"command": "ls"}), ("Read", {"file_path": "/a"})], tokens=60)
    summary = _fold(s.path)
    assert summary.output_total == 60
    assert summary.window_tokens(datetime.fromtimestamp(T0 + 5, UTC)) == 60


def test_growing_usage_of_one_response_counts_its_final_figure(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("go", T0)
    s.respond(T0 + 1, text="a", tokens=5, stop_reason=None, message_id="msg_same")
    s.respond(T0 + 2, text="b", tokens=40, stop_reason=None, message_id="msg_same")
    assert _fold(s.path).output_total == 40


def test_incremental_refresh_reads_only_appended_records(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("first", T0)
    s.end_turn(T0 + 5, tokens=10)
    cache = HarnessCache()
    first = follow(cache, str(s.path))
    assert first.output_total == 10
    entry = followed(cache).get(str(s.path))
    assert isinstance(entry, Transcript)
    read_before = entry.follower.lines_read
    s.prompt("second", T0 + 60)
    s.end_turn(T0 + 65, tokens=7)
    again = follow(cache, str(s.path))
    assert again is first and again.output_total == 17
    assert entry.follower.lines_read - read_before == 3  # prompt, answer, turn_duration
    assert again.clock.completed == [5.0, 5.0]


def test_a_half_written_last_line_is_read_once_complete(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("go", T0)
    cache = HarnessCache()
    line = orjson.dumps(
        {
            "type": "assistant",
            "timestamp": "2026-11-30T12:00:03.000Z",
            "message": {"id": "m1", "model": "claude-x", "content": [], "usage": {"output_tokens": 9}},
        }
    )
    s.append_raw(line[:20])
    assert follow(cache, str(s.path)).output_total == 0
    s.append_raw(line[20:] + b"\n")
    assert follow(cache, str(s.path)).output_total == 9


def test_a_replaced_file_is_folded_from_scratch(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("go", T0)
    s.end_turn(T0 + 1, tokens=50)
    cache = HarnessCache()
    assert follow(cache, str(s.path)).output_total == 50
    s.path.write_bytes(b"")
    s.prompt("new", T0 + 10)
    s.end_turn(T0 + 11, tokens=3)
    assert follow(cache, str(s.path)).output_total == 3


def test_cold_read_of_a_large_file_starts_near_its_end(store: ClaudeStore) -> None:
    s = store.session(cwd="/w/big")
    s.prompt("the very first request", T0)
    for i in range(200):
        s.respond(T0 + i, text="x" * 200, tokens=1, stop_reason=None)
    s.prompt("recent request", T0 + 300)
    call = s.tool("Bash", T0 + 301, tokens=2)
    for i in range(3):
        s.result(call, T0 + 302 + i, error=True)
    summary = follow(HarnessCache(), str(s.path), max_cold_bytes=8 * 1024)
    assert summary.partial
    assert summary.total is None, "a total over part of a file is not the total"
    assert summary.cwd == "/w/big" and summary.first_prompt == "the very first request"
    assert summary.prompts[-1][0] == "recent request"
    assert summary.loop() is not None and summary.loop().kind == "nothing-worked"  # type: ignore[union-attr]


def test_cold_read_mid_request_withholds_whole_request_loop_readings(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("a long request", T0)
    for i in range(100):
        s.respond(T0 + i, text="y" * 300, tokens=1, stop_reason=None)
    for i in range(3):
        call = s.tool("Bash", T0 + 200 + i, tokens=1)
        s.result(call, T0 + 200 + i, error=True)
    cache = HarnessCache()
    summary = follow(cache, str(s.path), max_cold_bytes=4 * 1024)
    assert summary.partial and not summary.outcomes.whole_request
    assert summary.outcomes.failures >= 1
    assert summary.loop() is None, "nothing-worked describes the whole request"
    for i in range(4):
        call = s.tool("Bash", T0 + 210 + i, tokens=1)
        s.result(call, T0 + 210 + i, error=True)
    again = follow(cache, str(s.path), max_cold_bytes=4 * 1024)
    reading = again.loop()
    assert reading is not None and reading.kind == "run", "the tight run needs no whole request"
    s.prompt("a new request", T0 + 300)
    for i in range(3):
        call = s.tool("Bash", T0 + 310 + i, tokens=1)
        s.result(call, T0 + 310 + i, error=True)
    fresh = follow(cache, str(s.path), max_cold_bytes=4 * 1024)
    assert fresh.outcomes.whole_request
    reading = fresh.loop()
    assert reading is not None and reading.kind == "nothing-worked"


def test_turn_boundaries(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("go", T0)
    assert _fold(s.path).clock.state == "open"
    assert _fold(s.path).thinking
    s.tool("Bash", T0 + 2)
    folded = _fold(s.path)
    assert not folded.thinking and folded.last_tool == "Bash"
    s.interrupt(T0 + 3)
    assert _fold(s.path).clock.state == "ended"
    s.prompt("again", T0 + 10)
    s.api_error(T0 + 11)
    assert _fold(s.path).clock.state == "ended"


def test_mcp_tools_are_named_by_service(store: ClaudeStore) -> None:
    s = store.session()
    s.prompt("list issues", T0)
    s.tool("mcp__linear__list_issues", T0 + 1)
    assert _fold(s.path).last_tool == "Linear · list issues"


def test_synthetic_model_is_never_the_model(store: ClaudeStore) -> None:
    s = store.session(model="claude-opus-5-5")
    s.prompt("go", T0)
    s.end_turn(T0 + 1)
    s.prompt("again", T0 + 2)
    s.api_error(T0 + 3)
    assert _fold(s.path).model == "claude-opus-5-5"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fold_survives_damaged_bytes(tmp_path_factory: Any, data: st.DataObject) -> None:
    home = tmp_path_factory.mktemp("fuzz")
    store = ClaudeStore(home)
    s = store.session()
    s.bookkeeping(T0)
    s.prompt("go", T0)
    call = s.wait("Which?", T0 + 1)
    s.answer(call, T0 + 2)
    s.end_turn(T0 + 3)
    s.title("A title")
    original = s.path.read_bytes()
    s.path.write_bytes(data.draw(damaged(original)))
    summary = follow(HarnessCache(), str(s.path))
    assert summary.output_total >= 0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=20,
)
KEYS = st.sampled_from(
    [
        "type",
        "message",
        "timestamp",
        "content",
        "usage",
        "id",
        "model",
        "stop_reason",
        "subtype",
        "isMeta",
        "toolUseResult",
        "cwd",
        "agentName",
        "teamName",
        "attachment",
        "customTitle",
        "aiTitle",
    ]
)
RECORD = st.dictionaries(
    KEYS, JSON | st.sampled_from(["user", "assistant", "system", "ai-title", "turn_duration", "end_turn"]), max_size=8
)


@settings(max_examples=300, deadline=None)
@given(records=st.lists(RECORD, max_size=12))
def test_fold_accepts_any_json_objects(records: list[dict[str, Any]]) -> None:
    summary = Summary()
    for record in records:
        summary.feed(record)
    summary.turn()
    summary.loop()
    summary.pending_input()
    assert summary.output_total >= 0


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_reading_in_pieces_equals_reading_at_once(tmp_path_factory: Any, cuts: list[int]) -> None:
    home = tmp_path_factory.mktemp("pieces")
    s = ClaudeStore(home).session()
    s.prompt("go", T0)
    for i in range(5):
        call = s.tool("Bash", T0 + i, tokens=3 + i)
        s.result(call, T0 + i, error=i % 2 == 0)
    s.end_turn(T0 + 9, tokens=4)
    whole = s.path.read_bytes()
    part = home / "growing.jsonl"
    part.write_bytes(b"")
    cache = HarnessCache()
    for cut in sorted(c % (len(whole) + 1) for c in cuts):
        part.write_bytes(whole[:cut])
        os.utime(part, ns=(cut, cut))
        follow(cache, str(part))
    part.write_bytes(whole)
    os.utime(part, ns=(len(whole) + 1, len(whole) + 1))
    pieces = follow(cache, str(part))
    once = follow(HarnessCache(), str(s.path))
    assert pieces.output_total == once.output_total == 3 + 4 + 5 + 6 + 7 + 4
    assert pieces.outcomes.failures == once.outcomes.failures == 3
    assert pieces.clock.state == once.clock.state == "ended"


def _response(at: float, ident: str, tokens: int) -> dict[str, Any]:
    return {
        "type": "assistant",
        "timestamp": datetime.fromtimestamp(at, UTC).isoformat().replace("+00:00", "Z"),
        "message": {
            "id": ident,
            "role": "assistant",
            "content": [{"type": "text", "text": "x"}],
            "usage": {"output_tokens": tokens},
        },
    }


@settings(max_examples=60, deadline=None)
@given(
    responses=st.lists(
        st.tuples(st.integers(0, 400), st.integers(1, 3), st.integers(0, 500)), min_size=1, max_size=120
    ),
    ahead=st.integers(-300, 3600),
)
def test_the_window_sum_is_exact_with_what_the_summary_keeps(responses: list[tuple[int, int, int]], ahead: int) -> None:
    """The summary lets go of old token events and message ids; the ten-minute window's sum
    and the total are what every response counted once gives, whenever the board's clock is
    at most five minutes behind the newest record (or anywhere after it)."""
    summary = Summary()
    at = T0
    counted: list[tuple[float, int]] = []
    for n, (gap, parts, tokens) in enumerate(responses):
        at += gap
        for _ in range(parts):  # one response split into records, each repeating its usage
            summary.feed(_response(at, f"msg_{n}", tokens))
        counted.append((at, tokens))
    now = at + ahead
    expected = sum(t for when, t in counted if now - 600 <= when <= now + 120 and t > 0)
    assert summary.window_tokens(datetime.fromtimestamp(now, UTC)) == expected
    assert summary.output_total == sum(t for _, t in counted)


def test_a_long_busy_session_keeps_a_quarter_hour_of_token_events() -> None:
    """Ten hours of a response every ten seconds: the summary keeps the token events of the
    last quarter hour and the ids of the newest 64 responses, not the session's whole history."""
    summary = Summary()
    for n in range(3600):
        summary.feed(_response(T0 + 10 * n, f"msg_{n}", 7))
    assert len(summary.events) <= 15 * 6 + 64
    assert len(summary._by_message) <= 64
    assert summary.output_total == 3600 * 7
    assert summary.window_tokens(datetime.fromtimestamp(T0 + 10 * 3599, UTC)) == 61 * 7
