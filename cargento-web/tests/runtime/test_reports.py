"""The irreversible-command reports a run keeps: bounded, redacted, in memory, and only from
the lanes whose plugins declare ``reports_irreversible``."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.reports import ReportLog

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_log_bounds_per_session_globally_and_by_age() -> None:
    log = ReportLog(global_limit=30, session_limit=20)
    for i in range(25):
        log.add("claude", "a", "git push -f", T0 + timedelta(seconds=i))
    assert len(log.reports(T0, "claude", "a")) == 20
    assert log.reports(T0, "claude", "a")[0].at == T0 + timedelta(seconds=24), "newest first"
    for i in range(15):
        log.add("codex", "b", "git reset --hard", T0 + timedelta(seconds=100 + i))
    assert len(log) == 30
    assert len(log.reports(T0, "claude", "a")) == 15
    assert log.reports(T0 + timedelta(hours=24, seconds=110)) != ()
    assert log.reports(T0 + timedelta(hours=25)) == ()


def test_reports_redact_and_clip_the_command() -> None:
    log = ReportLog()
    (report,) = log.add("claude", "a", "PGPASSWORD=hunter2hunter2 psql -c 'DROP TABLE x' " + "y" * 400, T0)
    assert "hunter2" not in report.command and len(report.command) <= 200


def test_after_tool_reports_from_claude_and_codex_only(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub()
    body = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force"}}
    result = hub.ingest("claude", {**body, "session_id": "c1"})
    assert [r.shape for r in result.irreversible] == ["force-push"]
    hub.ingest("codex", {**body, "session_id": "x1"})
    hub.ingest("gemini", {**body, "hook_event_name": "AfterTool", "session_id": "g1"})
    assert {(r.harness, r.session_id) for r in hub.irreversible_reports()} == {("claude", "c1"), ("codex", "x1")}


def test_no_irreversible_disables_matching(make_hub: Callable[..., EventHub]) -> None:
    hub = make_hub(irreversible=False)
    result = hub.ingest(
        "claude",
        {
            "session_id": "c1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git push -f"},
        },
    )
    assert result.irreversible == () and hub.irreversible_reports() == ()
    assert result.state == "working", "ordinary lifecycle hints remain"


def test_reports_stay_in_memory(make_hub: Callable[..., EventHub], tmp_path: Any) -> None:
    first = make_hub()
    first.ingest(
        "claude",
        {
            "session_id": "c1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git reset --hard"},
        },
    )
    assert make_hub().irreversible_reports() == ()
