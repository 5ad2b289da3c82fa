"""The backward walk and the incremental reader agree, and the walk reaches far-away records."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.cache import HarnessCache
from cargento.models import Instruction
from cargento.testing import make_context
from cargento_harness_codex import mapping, plugin
from cargento_harness_codex.fixtures import CodexSession, CodexStore
from cargento_harness_codex.meta import read_meta
from cargento_harness_codex.rollout import Rollout, load
from cargento_harness_codex.summary import Said, Summary
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
OPS = [
    "turn_start",
    "model",
    "prompt",
    "continue",
    "agent",
    "tool",
    "output",
    "plan",
    "exec_plan",
    "tokens",
    "end",
    "abort",
    "compact",
    "reasoning",
    "injected",
    "garbage",
]


def apply(session: CodexSession, op: str, at: datetime, n: int) -> None:
    if op == "turn_start":
        session.turn_start(at)
    elif op == "model":
        session.turn_context(f"gpt-{n % 3}", at)
    elif op == "prompt":
        session.prompt(f"Task number {n}: do the thing", at)
    elif op == "continue":
        session.prompt("proceed", at)
    elif op == "agent":
        session.agent(f"Working on part {n}.", at)
    elif op == "tool":
        session.tool(f"tool_{n % 4}", at)
    elif op == "output":
        session.tool_output("call_x", at)
    elif op == "plan":
        session.plan([(f"step {n}", "in_progress"), ("later", "pending")], at)
    elif op == "exec_plan":
        session.plan([(f"js step {n}", "completed")], at, shape="exec")
    elif op == "tokens":
        session.tokens(1 + n % 50, at)
    elif op == "end":
        session.end_turn(at, duration=n % 2 == 0)
    elif op == "abort":
        session.end_turn(at, aborted=True, duration=False)
    elif op == "compact":
        session.compact(at)
    elif op == "reasoning":
        session.reasoning(2000, at)
    elif op == "injected":
        session.injected("<environment_context>\n</environment_context>", at)
    elif op == "garbage":
        session.raw(b"not json at all\n", at)


def observable(summary: Summary, now: datetime) -> dict[str, Any]:
    return {
        "last_at": summary.last_at,
        "prompt": summary.prompt,
        "substantive": summary.substantive,
        "statement": summary.statement,
        "awaiting": summary.awaiting_statement,
        "plan": summary.plan,
        "model": summary.model,
        "last_tool": summary.last_tool,
        "tool_open": summary.tool_open,
        "turn": summary.turn(),
        "total": summary.total,
        "window": summary.window_tokens(now),
        "limits": summary.limits,
    }


steps = st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 400), st.integers(0, 1000)), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(ops=steps, cut=st.integers(0, 40), child=st.booleans())
def test_cold_walk_equals_walk_then_follow(ops: list[tuple[str, int, int]], cut: int, child: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="codex-walk-"))
    try:
        store = CodexStore(work)
        parent = store.session("01a22b67-0000-7000-8000-00000000000a", cwd="/w/p", at=T0)
        session = store.session(
            "01a22b67-0000-7000-8000-00000000000b", cwd="/w/p", at=T0, parent=parent if child else None, nickname="Kid"
        )
        if child:
            # A replayed parent history before the child's own first turn never counts.
            session.event("token_count", T0, info={"total_token_usage": {"output_tokens": 5000}})
        at = T0
        times = []
        for op, gap, n in ops:
            at += timedelta(seconds=gap)
            times.append((op, at, n))
        now = at + timedelta(seconds=30)
        meta, _ = read_meta(session.path)
        assert meta is not None
        for op, moment, n in times[:cut]:
            apply(session, op, moment, n)
        warm = Rollout.cold(str(session.path), meta, now)
        for op, moment, n in times[cut:]:
            apply(session, op, moment, n)
        assert warm.refresh()
        cold = Rollout.cold(str(session.path), meta, now)
        assert observable(warm.summary, now) == observable(cold.summary, now)
        if child and cold.summary.total is not None:
            assert cold.summary.total < 5000
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _far_home(home: Path, padding_mb: int) -> tuple[CodexSession, datetime]:
    store = CodexStore(home)
    session = store.session("01a22b67-0000-7000-8000-0000000000ff", cwd="/w/far", at=T0)
    session.turn_start(T0)
    session.turn_context("gpt-5-codex", T0)
    session.prompt("Port the scheduler to the new queue", T0)
    session.agent("Starting with the queue adapter.", T0)
    session.plan([("Adapter", "in_progress"), ("Tests", "pending")], T0)
    at = T0
    for _ in range(padding_mb * 2):
        at += timedelta(seconds=1)
        session.reasoning(512 * 1024, at)
    session.tokens(70, at)
    return session, at


def test_prompt_and_plan_beyond_any_tail_are_found(tmp_path: Path) -> None:
    _session, at = _far_home(tmp_path, 8)
    ctx = make_context(tmp_path, now=at + timedelta(seconds=10), window_s=None)
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    assert reading.title == "Port the scheduler to the new queue"
    assert reading.instruction == Instruction(text="Port the scheduler to the new queue", source="prompt", at=T0)
    assert [(t.subject, t.status) for t in reading.tasks] == [("Adapter", "in_progress"), ("Tests", "pending")]
    assert reading.turn.state == "open"


def test_refresh_reads_appended_records_only(tmp_path: Path) -> None:
    session, at = _far_home(tmp_path, 4)
    ctx = make_context(tmp_path, now=at + timedelta(seconds=5), window_s=None)
    ref = plugin.discover(ctx=ctx).sessions[0]
    plugin.read_session(ref=ref, ctx=ctx)
    rollout = ctx.cache.get(f"rollout:{session.path}")
    assert isinstance(rollout, Rollout)
    lines_before = rollout.follower.lines_read
    session.prompt("Now add metrics", at + timedelta(seconds=2))
    session.end_turn(at + timedelta(seconds=3))
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None and reading.title == "Now add metrics"
    assert reading.turn.state == "ended"
    assert rollout.follower.lines_read - lines_before == 3  # the prompt's two records and the end


def test_half_written_line_does_not_advance_the_offset(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000aa", cwd="/w/p", at=T0)
    session.turn_start(T0)
    session.prompt("First request", T0)
    meta, _ = read_meta(session.path)
    assert meta is not None
    cache = HarnessCache()
    line = b'{"timestamp":"2026-11-30T09:00:05.000Z","ordinal":9,"type":"event_msg","payload":{"type":"user_message","message":"Second request"}}\n'
    session.raw(line[:40], T0 + timedelta(seconds=5))
    first = load(cache, str(session.path), meta, T0 + timedelta(seconds=6))
    offset = first.follower.offset
    assert first.summary.prompt is not None and first.summary.prompt.text == "First request"
    assert load(cache, str(session.path), meta, T0 + timedelta(seconds=6)).follower.offset == offset
    session.raw(line[40:], T0 + timedelta(seconds=7))
    done = load(cache, str(session.path), meta, T0 + timedelta(seconds=8))
    assert done.summary.prompt is not None and done.summary.prompt.text == "Second request"
    assert done.follower.offset > offset


def test_truncated_file_is_walked_again(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000ab", cwd="/w/p", at=T0)
    session.prompt("Keep me", T0)
    size = session.path.stat().st_size
    session.prompt("Drop me", T0 + timedelta(seconds=1))
    meta, _ = read_meta(session.path)
    assert meta is not None
    cache = HarnessCache()
    assert load(cache, str(session.path), meta, T0).summary.prompt == Said("Drop me", T0 + timedelta(seconds=1))
    with open(session.path, "r+b") as fh:
        fh.truncate(size)
    again = load(cache, str(session.path), meta, T0 + timedelta(seconds=2))
    assert again.summary.prompt is not None and again.summary.prompt.text == "Keep me"


def test_prompt_walk_stops_at_compaction_but_plan_walk_does_not(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000ac", cwd="/w/p", at=T0)
    session.turn_start(T0)
    session.prompt("Before the compaction", T0)
    session.plan([("Kept across compaction", "in_progress")], T0)
    session.compact(T0 + timedelta(seconds=5))
    session.agent("Continuing after the summary.", T0 + timedelta(seconds=6))
    meta, _ = read_meta(session.path)
    assert meta is not None
    summary = Rollout.cold(str(session.path), meta, T0 + timedelta(seconds=7)).summary
    assert summary.prompt is None and summary.substantive is None
    assert summary.plan is not None and summary.plan[0].step == "Kept across compaction"
    assert mapping.instruction(summary) == Instruction(
        text="Continuing after the summary.", source="agent", at=T0 + timedelta(seconds=6)
    )
    assert mapping.title(summary) is None


def test_continuation_points_at_the_earlier_request(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000ad", cwd="/w/p", at=T0, legacy=True)
    session.turn_start(T0)
    session.prompt("Rename the config loader\nand update callers", T0)
    session.end_turn(T0 + timedelta(seconds=20))
    session.turn_start(T0 + timedelta(seconds=60))
    session.prompt("proceed", T0 + timedelta(seconds=60))
    session.agent("Updating the callers now.", T0 + timedelta(seconds=61))
    meta, _ = read_meta(session.path)
    assert meta is not None
    summary = Rollout.cold(str(session.path), meta, T0 + timedelta(seconds=62)).summary
    assert mapping.instruction(summary) == Instruction(
        text="Rename the config loader\nand update callers", source="earlier prompt", at=T0
    )
    assert mapping.title(summary) == "Rename the config loader"
    assert summary.statement is not None and summary.statement.text == "Updating the callers now."


def test_injected_context_is_not_a_prompt(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000ae", cwd="/w/p", at=T0, legacy=True)
    session.prompt("Real request", T0)
    session.prompt("<user_instructions>\nBe terse\n</user_instructions>", T0 + timedelta(seconds=1))
    session.prompt("# AGENTS.md instructions for /w/p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>", T0 + timedelta(seconds=2))
    session.injected("<environment_context>\n</environment_context>", T0 + timedelta(seconds=3))
    meta, _ = read_meta(session.path)
    assert meta is not None
    summary = Rollout.cold(str(session.path), meta, T0 + timedelta(seconds=4)).summary
    assert summary.prompt is not None and summary.prompt.text == "Real request"


def test_open_turn_thinking_versus_tool(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000af", cwd="/w/p", at=T0)
    session.turn_start(T0)
    session.prompt("Go", T0)
    call = session.tool("mcp__github__search_issues", T0 + timedelta(seconds=1))
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=2), window_s=None)
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None and not reading.thinking and reading.last_tool == "github · search_issues"
    session.tool_output(call, T0 + timedelta(seconds=3))
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None and reading.thinking


def test_a_followed_rollout_keeps_a_quarter_hour_of_increments(tmp_path: Path) -> None:
    """Three hours of responses followed one refresh at a time: the window's sum is the last ten
    minutes' responses, and the summary holds about a quarter hour of increments, not three
    hours of them."""
    store = CodexStore(tmp_path)
    session = store.session("01a22b67-0000-7000-8000-0000000000c1", cwd="/w/p", at=T0)
    session.turn_start(T0)
    meta, _ = read_meta(session.path)
    assert meta is not None
    warm = Rollout.cold(str(session.path), meta, T0)
    at = T0
    for step in range(1, 3 * 360 + 1):
        at = T0 + timedelta(seconds=10 * step)
        session.tokens(step % 7 + 1, at)
        assert warm.refresh()
    window = sum(
        step % 7 + 1
        for step in range(1, 3 * 360 + 1)
        if at - T0 - timedelta(seconds=10 * step) <= timedelta(minutes=10)
    )
    assert warm.summary.window_tokens(at) == window
    assert warm.summary.window_tokens(at) == Rollout.cold(str(session.path), meta, at).summary.window_tokens(at)
    assert len(warm.summary.increments) <= 90 + 1 + 64
