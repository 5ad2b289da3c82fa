"""What a row shows: detail order, idle wording, turn elapsed and ETA, role, resume, tasks."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()
SID = "11111111-1111-4111-8111-111111111111"


def _row(board: Any, store: ClaudeStore) -> Any:
    [row] = board(store.home).sessions
    return row


def test_detail_in_task_then_subagents_then_thinking_then_tool_then_generating(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 30)
    assert _row(board, store).detail == "thinking"
    s.tool("mcp__linear__list_issues", T0 - 25)
    assert _row(board, store).detail == "Linear · list issues"
    s.result("toolu_x", T0 - 24)
    s.tokens(10, T0 - 20)
    assert _row(board, store).detail == "Linear · list issues", "the newest tool call of the turn"
    agent = s.subagent("a1", description="Scan files", at=T0 - 10)
    agent.prompt("scan", T0 - 10)
    assert _row(board, store).detail == "running 1 subagent: Scan files"
    store.task(SID, "1", "Write docs", status="in_progress", active_form="Writing docs", at=T0 - 5)
    assert _row(board, store).detail == "Writing docs"


def test_generating_when_text_streams_without_a_tool(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("explain", T0 - 10)
    s.tokens(50, T0 - 5)
    assert _row(board, store).detail == "generating…"


def test_idle_row_says_how_long_ago(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 400)
    s.end_turn(T0 - 300)
    row = _row(board, store)
    assert row.state == "idle" and row.detail == "last active 5 min ago"


def test_turn_end_reads_idle_at_once(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID, interactive=False)
    s.prompt("go", T0 - 5)
    s.end_turn(T0 - 2)
    assert _row(board, store).state == "idle"


def test_eta_from_completed_turns_and_withheld_without_a_sample(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("one", T0 - 3000)
    s.end_turn(T0 - 2700)
    s.prompt("current", T0 - 60)
    s.tokens(5, T0 - 10)
    row = _row(board, store)
    assert row.turn is not None and row.turn.elapsed_s == 60 and row.turn.eta_s is None
    s2 = ClaudeStore(store.home).session("22222222-2222-4222-8222-222222222222")
    for start, length in ((T0 - 5000, 200), (T0 - 4000, 280)):
        s2.prompt("turn", start)
        s2.end_turn(start + length)
    s2.prompt("current", T0 - 100)
    s2.tokens(5, T0 - 10)
    rows = {r.session_id: r for r in board(store.home).sessions}
    assert rows["22222222-2222-4222-8222-222222222222"].turn.eta_s == 140.0, (
        "median of the longer turns (240 s) less the 100 s so far"
    )


def test_a_quiet_gap_over_five_minutes_re_anchors_elapsed(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("go", T0 - 1000)
    s.tool("Bash", T0 - 990)
    s.result("toolu_y", T0 - 60)  # an answered permission prompt, 930 s later
    s.tokens(5, T0 - 30)
    row = _row(board, store)
    assert row.turn is not None and row.turn.elapsed_s == 10 + 60
    assert not row.turn.long


def test_fifteen_minute_warning(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("big job", T0 - 1000)
    for i in range(1000, 0, -60):
        s.tokens(5, T0 - i + 30)
    row = _row(board, store)
    assert row.turn is not None and row.turn.long and row.turn.elapsed_s >= 900


def test_spacedock_role_and_resume(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID, cwd="/w/ship", agent_setting="spacedock:ensign")
    s.prompt("go", T0 - 10)
    row = _row(board, store)
    assert row.role == "spacedock:ensign"
    assert row.resume_command == f"claude --resume {SID}" and row.resume_cwd == "/w/ship"
    other = ClaudeStore(store.home).session("22222222-2222-4222-8222-222222222222", agent_setting="some-other-agent")
    other.prompt("go", T0 - 10)
    rows = {r.session_id: r for r in board(store.home).sessions}
    assert rows["22222222-2222-4222-8222-222222222222"].role is None


def test_titles_newest_user_set_or_generated_else_first_prompt(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("<command-name>/review</command-name><command-args>PR 12</command-args>", T0 - 10)
    assert _row(board, store).title == "/review PR 12"
    s.title("Reviewing PR 12")
    assert _row(board, store).title == "Reviewing PR 12"
    s.title("My name for it", custom=True)
    assert _row(board, store).title == "My name for it"


def test_task_ages_from_creation_recorded_in_the_transcript(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("plan", T0 - 700)
    call = s.tool("TaskCreate", T0 - 650, input={"subject": "Write the parser"})
    s.result(call, T0 - 600, tool_result={"task": {"id": "1", "subject": "Write the parser"}})
    store.task(SID, "1", "Write the parser", status="in_progress", active_form="Writing the parser", at=T0 - 100)
    [task] = _row(board, store).tasks
    assert task.age_s == 600.0


def test_instruction_and_loop_on_the_row(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID)
    s.prompt("Make the tests pass", T0 - 200)
    s.prompt("proceed", T0 - 100)
    for i in range(4):
        call = s.tool("Bash", T0 - 90 + i, input={"command": "pytest"})
        s.result(call, T0 - 89 + i, error=True)
    row = _row(board, store)
    assert row.instruction.text == "Make the tests pass" and row.instruction.source == "earlier prompt"
    assert row.loop is not None and row.loop.kind == "run"


def test_project_label_falls_back_to_the_folder_name(store: ClaudeStore, board: Any) -> None:
    s = store.session(SID, cwd="/w/proj")
    s.path.write_bytes(
        b'{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"2026-11-30T11:59:50.000Z"}\n'
    )
    row = _row(board, store)
    assert row.cwd is None and row.project == "w-proj"


def test_a_first_officers_boot_command_output_is_published_and_conversation_text_is_not(
    store: ClaudeStore, board: Any
) -> None:
    s = store.session(SID, cwd="/w/ship", agent_setting="spacedock:first-officer")
    s.prompt('{"workflow_dir": "/w/ship/docs/wf", "entity_dir": "/w/ship/docs/wf"}', T0 - 30)
    assert _row(board, store).spacedock is None, "boot JSON typed as conversation is not command output"
    failed = s.tool("Bash", T0 - 25, input={"command": "spacedock status --boot"})
    s.result(failed, T0 - 24, error=True, output='{"workflow_dir": "/w/ship/docs/wf"}')
    assert _row(board, store).spacedock is None, "a failed command is no boot"
    s.spacedock_boot("/w/ship/docs/wf", "/w/ship/docs/wf", T0 - 20, dispatchable=[{"slug": "a", "current": "design"}])
    row = _row(board, store)
    assert row.role == "spacedock:first-officer"
    assert row.spacedock is not None and row.spacedock.workflow_dirs == ("/w/ship/docs/wf",)
    assert [(d.slug, d.current) for d in row.spacedock.dispatchable] == [("a", "design")]
