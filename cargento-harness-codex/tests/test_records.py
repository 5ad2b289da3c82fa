"""Parsers: plans in both wire shapes, line 1 identity, usage and rate limits, discovery."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.models import RateLimit
from cargento.testing import make_context
from cargento.testing.strategies import damaged
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore
from cargento_harness_codex.jsliteral import parse_literal
from cargento_harness_codex.meta import HEAD_BYTES, meta_from_head, read_meta, stem_id
from cargento_harness_codex.plan import PlanStep, plan_from_arguments, plan_from_exec_source
from cargento_harness_codex.records import fact_from_line, fact_from_record, rate_limits
from hypothesis import given
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


# -- plans ---------------------------------------------------------------------------------


def test_exec_plan_lenient_javascript() -> None:
    source = (
        "// update the plan first\nconst r = await tools.update_plan({\n"
        '  explanation: "Implement and verify",\n'
        "  plan: [\n    {step: 'Inspect current behavior', status: \"completed\"},\n"
        "    {'step': `Implement parser`, status: 'in_progress',},\n    /* last */ {step: \"Run tests\", status: 'done'},\n  ],\n"
        "});\ntext(JSON.stringify(r));"
    )
    assert plan_from_exec_source(source) == (
        PlanStep("Inspect current behavior", "completed"),
        PlanStep("Implement parser", "in_progress"),
        PlanStep("Run tests", "completed"),
    )


def test_exec_plan_takes_the_last_literal_call_and_skips_dynamic_ones() -> None:
    source = (
        "await tools.update_plan({plan: [{step: 'one', status: 'pending'}]});\n"
        "await tools.update_plan(nextPlan);\n"
        "await tools.update_plan({plan: [{step: `t ${x}`, status: 'pending'}]});\n"
        "await tools.update_plan({plan: [{step: 'two', status: 'in_progress'}]});"
    )
    assert plan_from_exec_source(source) == (PlanStep("two", "in_progress"),)
    assert plan_from_exec_source("await tools.exec_command({cmd: 'ls'})") is None
    assert plan_from_exec_source("x" * (300 * 1024) + "update_plan({plan: []})") is None


def test_function_plan_arguments() -> None:
    args = json.dumps(
        {
            "explanation": "x",
            "plan": [{"step": "Write", "status": "in_progress"}, {"step": "", "status": "pending"}, "junk"],
        }
    )
    assert plan_from_arguments(args) == (PlanStep("Write", "in_progress"),)
    assert plan_from_arguments("{not json") is None
    assert plan_from_arguments(json.dumps({"plan": "nope"})) is None


@given(st.text(max_size=400))
def test_js_literal_never_raises(text: str) -> None:
    parse_literal(text)
    plan_from_exec_source("tools.update_plan(" + text)


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=30).filter(str.strip), st.sampled_from(["pending", "in_progress", "completed"])
        ),
        max_size=8,
    )
)
def test_js_literal_round_trip(steps: list[tuple[str, str]]) -> None:
    body = ", ".join("{step: " + json.dumps(s) + ", status: '" + st_ + "'}" for s, st_ in steps)
    parsed = plan_from_exec_source("await tools.update_plan({plan: [" + body + "]});")
    assert parsed == tuple(PlanStep(s.strip(), st_) for s, st_ in steps)  # type: ignore[arg-type]


# -- line 1 -----------------------------------------------------------------------------------


def test_huge_line_one_is_read_from_its_prefix(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    parent = store.session("01a22b67-0000-7000-8000-0000000000c1", cwd="/w/p", at=T0)
    child = store.session(
        "01a22b67-0000-7000-8000-0000000000c2",
        cwd="/w/p",
        at=T0,
        parent=parent,
        nickname="Gibbs",
        instructions_bytes=HEAD_BYTES + 4096,
    )
    assert child.path.stat().st_size > HEAD_BYTES
    meta, conclusive = read_meta(child.path)
    assert conclusive and meta is not None
    assert (meta.id, meta.parent_id, meta.nickname, meta.cwd) == (child.session_id, parent.session_id, "Gibbs", "/w/p")


def test_unterminated_line_one_is_not_final(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-11-30T09-00-00-01a22b67-0000-7000-8000-0000000000c3.jsonl"
    path.write_bytes(b'{"timestamp":"2026-11-30T09:00:00Z","type":"session_meta","payload":{"id":"01a2')
    assert read_meta(path) == (None, False)
    assert stem_id(path) == "01a22b67-0000-7000-8000-0000000000c3"
    path.write_bytes(b'{"timestamp":"2026-11-30T09:00:00Z","type":"event_msg","payload":{}}\n')
    assert read_meta(path) == (None, True)


@given(st.binary(max_size=2048))
def test_meta_from_garbage_never_raises(data: bytes) -> None:
    meta_from_head(data, "rollout-x.jsonl")


# -- usage and other records -----------------------------------------------------------------


def test_rate_limit_windows() -> None:
    raw = {
        "limit_name": None,
        "primary": {"used_percent": 42.0, "window_minutes": 300, "resets_at": 1796030000},
        "secondary": {"used_percent": 7, "window_minutes": 10080, "resets_in_seconds": 3600},
        "credits": None,
    }
    assert rate_limits(raw, T0) == (
        RateLimit(name="5h", used_percent=42.0, window_minutes=300, resets_at=datetime.fromtimestamp(1796030000, UTC)),
        RateLimit(name="weekly", used_percent=7.0, window_minutes=10080, resets_at=T0 + timedelta(hours=1)),
    )
    assert rate_limits({"primary": None, "secondary": None}, T0) == ()
    assert rate_limits({"primary": {"used_percent": "x"}}, T0) == ()


def test_usage_window_total_and_limits(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    s = store.session("01a22b67-0000-7000-8000-0000000000d1", cwd="/w/p", at=T0)
    s.turn_start(T0)
    s.tokens(500, T0)
    s.tokens(40, T0 + timedelta(minutes=15), limits={"primary": {"used_percent": 30.0, "window_minutes": 300}})
    s.tokens(60, T0 + timedelta(minutes=16), count_event=False)
    ctx = make_context(tmp_path, now=T0 + timedelta(minutes=17), window_s=None)
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None
    usage = plugin.usage(reading=reading, ctx=ctx)
    assert usage is not None
    assert usage.output_tokens_total == 600
    assert usage.output_tokens_window == 100
    assert usage.rate_limits == (RateLimit(name="5h", used_percent=30.0, window_minutes=300),)


def test_no_usage_records_means_unmeasured(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    s = store.session("01a22b67-0000-7000-8000-0000000000d2", cwd="/w/p", at=T0)
    s.turn_start(T0)
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=5), window_s=None)
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None
    assert plugin.usage(reading=reading, ctx=ctx) is None
    assert plugin.model(reading=reading, ctx=ctx) is None


def test_child_ignores_replayed_parent_usage(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    parent = store.session("01a22b67-0000-7000-8000-0000000000e1", cwd="/w/p", at=T0)
    parent.turn_start(T0)
    parent.tokens(300, T0)
    child = parent.spawn("01a22b67-0000-7000-8000-0000000000e2", nickname="Reviewer", at=T0 + timedelta(seconds=1))
    # Replayed parent history: its task_started-less token_count and a record of the parent thread.
    child.event("token_count", T0, info={"total_token_usage": {"output_tokens": 300}})
    child.turn_start(T0 + timedelta(seconds=2))
    child.record(
        "token_usage_record",
        {"thread_id": parent.session_id, "thread_token_usage": {"output_tokens": 300}},
        T0 + timedelta(seconds=2),
    )
    child.tokens(12, T0 + timedelta(seconds=3))
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=10), window_s=None)
    refs = {r.session_id: r for r in plugin.discover(ctx=ctx).sessions}
    kid = plugin.read_session(ref=refs[child.session_id], ctx=ctx)
    assert kid is not None and kid.parent_id == parent.session_id and kid.agent_name == "Reviewer"
    kid_usage = plugin.usage(reading=kid, ctx=ctx)
    assert kid_usage is not None and kid_usage.output_tokens_total == 12 and kid_usage.output_tokens_window == 12
    lead = plugin.read_session(ref=refs[parent.session_id], ctx=ctx)
    assert lead is not None
    lead_usage = plugin.usage(reading=lead, ctx=ctx)
    assert lead_usage is not None and lead_usage.output_tokens_total == 312


@given(st.data())
def test_damaged_lines_never_raise(data: st.DataObject) -> None:
    line = json.dumps(
        {
            "timestamp": "2026-11-30T09:00:00.000Z",
            "ordinal": 3,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "update_plan",
                "arguments": json.dumps({"plan": [{"step": "a", "status": "pending"}]}),
            },
        }
    ).encode()
    raw = data.draw(damaged(line))
    fact_from_line(raw)
    record = data.draw(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=8),
            lambda kids: (
                st.lists(kids, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "type",
                            "payload",
                            "timestamp",
                            "info",
                            "item",
                            "role",
                            "content",
                            "plan",
                            "name",
                            "arguments",
                            "input",
                            "rate_limits",
                            "primary",
                        ]
                    ),
                    kids,
                    max_size=4,
                )
            ),
            max_leaves=12,
        )
    )
    if isinstance(record, dict):
        fact_from_record(record)


# -- discovery ---------------------------------------------------------------------------------


def test_resume_keeps_the_newest_file_per_id(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    sid = "01a22b67-0000-7000-8000-0000000000f1"
    first = store.session(sid, cwd="/w/p", at=T0)
    first.prompt("Old file", T0)
    second = store.session(
        sid, cwd="/w/p", at=T0 + timedelta(days=1), filename_id="01a22b67-0000-7000-8000-0000000000f9"
    )
    second.prompt("Resumed file", T0 + timedelta(days=1))
    ctx = make_context(tmp_path, now=T0 + timedelta(days=1, seconds=5), window_s=None)
    refs = plugin.discover(ctx=ctx).sessions
    assert [(r.session_id, r.path) for r in refs] == [(sid, str(second.path))]


def test_files_outside_the_window_are_not_opened(tmp_path: Path) -> None:
    folder = tmp_path / ".codex/sessions/2026/11/27"
    folder.mkdir(parents=True)
    # Line 1 is not a session_meta: opened, this file would be dropped; unopened it is listed
    # under its file-name id and left for core to skip as too old.
    old = folder / "rollout-2026-11-27T09-00-00-01a22b67-0000-7000-8000-0000000000f4.jsonl"
    old.write_bytes(b'{"type":"event_msg"}\n')
    stamp = (T0 - timedelta(days=3)).timestamp()
    os.utime(old, (stamp, stamp))
    assert [r.session_id for r in plugin.discover(ctx=make_context(tmp_path, now=T0)).sessions] == [
        "01a22b67-0000-7000-8000-0000000000f4"
    ]
    assert plugin.discover(ctx=make_context(tmp_path, now=T0, window_s=None)).sessions == ()


def test_newer_turn_spellings(tmp_path: Path) -> None:
    store = CodexStore(tmp_path)
    s = store.session("01a22b67-0000-7000-8000-0000000000f5", cwd="/w/p", at=T0)
    s.event("turn_started", T0, turn_id="t1")
    s.prompt("Go", T0)
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=200), window_s=None)
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None and reading.turn.state == "open" and reading.turn.started_at == T0
    s.event("turn_complete", T0 + timedelta(seconds=30), turn_id="t1")
    reading = plugin.read_session(ref=plugin.discover(ctx=ctx).sessions[0], ctx=ctx)
    assert reading is not None and reading.turn.state == "ended"
    assert reading.turn.completed_s == (30.0,)


def test_nested_subagents_fold_into_the_root_row(tmp_path: Path) -> None:
    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry
    from cargento.processes import StaticProcesses

    store = CodexStore(tmp_path)
    lead = store.session("01a22b67-0000-7000-8000-0000000000f6", cwd="/w/p", at=T0)
    lead.turn_start(T0)
    lead.turn_context("gpt-5-codex", T0)
    lead.prompt("Fan out", T0)
    child = lead.spawn("01a22b67-0000-7000-8000-0000000000f7", nickname="Ada", at=T0 + timedelta(seconds=1))
    child.turn_start(T0 + timedelta(seconds=1))
    child.turn_context("gpt-5-codex-mini", T0 + timedelta(seconds=1))
    child.end_turn(T0 + timedelta(seconds=5))
    grandchild = child.spawn("01a22b67-0000-7000-8000-0000000000f8", nickname="Babbage", at=T0 + timedelta(seconds=2))
    grandchild.turn_start(T0 + timedelta(seconds=2))
    grandchild.tokens(30, T0 + timedelta(seconds=50))
    now = T0 + timedelta(seconds=60)
    registry = load_registry(entry_points=False, extra=[("codex", plugin)])
    board = BoardBuilder(
        registry, env={"HOME": str(tmp_path)}, home=tmp_path, clock=lambda: now, processes=StaticProcesses()
    ).build(all_sessions=True)
    assert [s.session_id for s in board.sessions] == [lead.session_id]
    pills = {a.name: a for a in board.sessions[0].subagents}
    assert set(pills) == {"Ada", "Babbage"}
    assert pills["Ada"].model == "gpt-5-codex-mini" and not pills["Ada"].running
    assert pills["Babbage"].running
    assert board.sessions[0].state == "working"
    assert board.sessions[0].output_tokens_total == 30
