"""The real stores Claude Code 2.1.332 wrote, read against their truth.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.processes import ProcessInfo, StaticProcesses

GOLDEN = "claude-code-2.1.332"
SCENARIOS = ["A-single-turn", "B-tasks", "C-subagents", "D1-permission-wait", "D4-question-wait", "F-teams"]


def _at(truth: dict[str, Any]) -> datetime:
    return datetime.fromtimestamp(truth["snapshot_at"], UTC)


def _pid_file(home: Path) -> dict[str, Any]:
    [path] = (home / ".claude" / "sessions").glob("*.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _live(
    home: Path, *, shift_s: float = 0.0, cmdline: str | None = "claude --permission-mode default"
) -> StaticProcesses:
    data = _pid_file(home)
    started = data["startedAt"] / 1000.0 + shift_s
    return StaticProcesses({data["pid"]: ProcessInfo(pid=data["pid"], started_at=started, cmdline=cmdline)})


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_sessions_found_with_their_readings(golden: Any, scenario: str, read_all: Any) -> None:
    home, truth = golden(f"{GOLDEN}/{scenario}")
    reads = read_all(home, now=_at(truth))
    assert list(reads) == truth["session_ids"]
    read = reads[truth["session_ids"][0]]
    reading = read.reading
    # No title record was written in any of these runs: the first prompt stands in for it.
    assert truth["expected_title"] is None
    first = truth.get("first_prompt") or truth.get("prompts_so_far", [None])[0]
    assert reading.title == first
    assert reading.cwd is not None and reading.cwd.endswith(truth["cwd"].split("$LAB", 1)[1])
    assert read.model is not None and read.model.id == truth["model"]
    assert read.usage is not None and read.usage.output_tokens_total == truth["output_tokens_total"]
    assert reading.resume_command == f"claude --resume {truth['session_ids'][0]}"
    assert [t.subject for t in reading.tasks] == [t["subject"] for t in truth["tasks"]]
    assert [t.status for t in reading.tasks] == [t["status"] for t in truth["tasks"]]
    assert [t.active_form for t in reading.tasks] == [t["activeForm"] for t in truth["tasks"]]
    expected_names = [s.get("name") or s["description"] for s in truth["subagents"]]
    assert sorted(s.name for s in reading.subagents) == sorted(expected_names)
    assert all(not s.running for s in reading.subagents), "every recorded subagent had finished or gone idle"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_state_at_snapshot_with_the_real_process_table(golden: Any, scenario: str, board: Any) -> None:
    """The recorded pids are not alive here, so the pid files claim nothing."""
    home, truth = golden(f"{GOLDEN}/{scenario}")
    [row] = board(home, now=_at(truth)).sessions
    if scenario == "D1-permission-wait":
        # Only the dead process's status file knew about the Bash permission prompt: the
        # transcript shows an open tool call 37 s old, which reads Working, not a guess.
        assert row.state == "working"
        assert row.waiting is None
        assert row.detail == "Bash"
    else:
        assert row.state == truth["expected_state"]
    assert not row.faults


def test_model_display_name_from_the_model_attachment(golden: Any, read_all: Any) -> None:
    home, truth = golden(f"{GOLDEN}/A-single-turn")
    read = read_all(home, now=_at(truth))[truth["session_ids"][0]]
    assert read.model is not None and read.model.display == "Opus 5.5"


def test_turn_end_recorded_by_end_turn_reads_idle_seconds_after(golden: Any, read_all: Any) -> None:
    home, truth = golden(f"{GOLDEN}/A-single-turn")
    read = read_all(home, now=_at(truth))[truth["session_ids"][0]]
    assert read.reading.turn.state == "ended"
    assert (_at(truth) - read.reading.last_active_at).total_seconds() < 90


def test_question_wait_shows_the_question(golden: Any, board: Any) -> None:
    home, truth = golden(f"{GOLDEN}/D4-question-wait")
    [row] = board(home, now=_at(truth)).sessions
    assert row.state == "needs_input"
    assert row.waiting is not None and row.waiting.kind == "question"
    assert row.waiting.text == truth["pending_tool"]["question"]
    assert row.detail == truth["pending_tool"]["question"]


def test_question_wait_with_its_live_process(golden: Any, board: Any) -> None:
    home, truth = golden(f"{GOLDEN}/D4-question-wait")
    [row] = board(home, now=_at(truth), processes=_live(home)).sessions
    assert row.state == "needs_input"
    assert row.waiting is not None and row.waiting.source == "pid file"
    assert row.waiting.text == truth["pending_tool"]["question"]


def test_permission_wait_with_its_live_process(golden: Any, board: Any) -> None:
    home, truth = golden(f"{GOLDEN}/D1-permission-wait")
    [row] = board(home, now=_at(truth), processes=_live(home)).sessions
    assert row.state == "needs_input"
    assert row.waiting is not None
    assert row.waiting.kind == "permission"
    assert row.waiting.source == "pid file"
    assert row.waiting.text == f"permission prompt · Bash: {truth['pending_tool']['command']}"


@pytest.mark.parametrize(
    "processes",
    [
        pytest.param(lambda home: StaticProcesses(), id="pid gone"),
        pytest.param(lambda home: _live(home, shift_s=3600.0), id="pid reused by a later process"),
        pytest.param(lambda home: _live(home, shift_s=-86400.0), id="start time far before"),
        pytest.param(
            lambda home: StaticProcesses(
                {_pid_file(home)["pid"]: ProcessInfo(pid=_pid_file(home)["pid"], cmdline="/usr/bin/python3 server.py")}
            ),
            id="other command, no start time",
        ),
        pytest.param(
            lambda home: StaticProcesses({_pid_file(home)["pid"]: ProcessInfo(pid=_pid_file(home)["pid"])}),
            id="existence only",
        ),
    ],
)
def test_stale_pid_file_claims_nothing(golden: Any, processes: Any, board: Any) -> None:
    home, truth = golden(f"{GOLDEN}/D1-permission-wait")
    [row] = board(home, now=_at(truth), processes=processes(home)).sessions
    assert row.waiting is None
    assert row.state == "working"


def test_live_process_verified_by_command_line_when_no_start_time(golden: Any, board: Any) -> None:
    home, truth = golden(f"{GOLDEN}/D1-permission-wait")
    pid = _pid_file(home)["pid"]
    table = StaticProcesses({pid: ProcessInfo(pid=pid, cmdline="/home/u/.local/bin/claude")})
    [row] = board(home, now=_at(truth), processes=table).sessions
    assert row.state == "needs_input"


def test_teams_lead_idle_from_its_live_status(golden: Any, board: Any) -> None:
    """F: the live status says idle; the teammate has its transcript, so the roster is quiet."""
    home, truth = golden(f"{GOLDEN}/F-teams")
    [row] = board(home, now=_at(truth), processes=_live(home)).sessions
    assert row.state == "idle"
    assert row.waiting is None
    [mate] = row.subagents
    assert mate.name == "researcher" and mate.role == "researcher" and not mate.running


def test_teams_roster_member_without_transcript_is_needs_input(golden: Any, board: Any) -> None:
    """F with the teammate's transcript removed: the roster names a member that never wrote."""
    home, truth = golden(f"{GOLDEN}/F-teams")
    sub = next((home / ".claude" / "projects").glob("*/*/subagents"))
    for path in sub.iterdir():
        path.unlink()
    later = datetime.fromtimestamp(truth["snapshot_at"] + 60, UTC)
    [row] = board(home, now=later).sessions
    assert row.state == "needs_input"
    assert row.waiting is not None and row.waiting.kind == "roster"
    assert row.waiting.text is not None and row.waiting.text.startswith("researcher has not started")


def test_subagent_tokens_add_to_the_parent(golden: Any, read_all: Any) -> None:
    home, truth = golden(f"{GOLDEN}/C-subagents")
    read = read_all(home, now=_at(truth))[truth["session_ids"][0]]
    assert read.usage is not None
    assert read.usage.output_tokens_total == truth["output_tokens_main"] + truth["output_tokens_subagents"]
    # Every response landed within the last ten minutes, so the window holds them all.
    assert read.usage.output_tokens_window == truth["output_tokens_total"]


def test_task_notification_turns_are_not_prompts(golden: Any, read_all: Any) -> None:
    home, truth = golden(f"{GOLDEN}/C-subagents")
    read = read_all(home, now=_at(truth))[truth["session_ids"][0]]
    assert read.reading.instruction is not None
    assert read.reading.instruction.text == truth["first_prompt"]
    assert read.reading.turn.state == "ended"
