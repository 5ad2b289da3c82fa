"""The fixed irreversible command shapes and their bounded in-memory record."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from cargento.events.hub import EventHub
from cargento.events.irreversible import ReportLog, match_command
from hypothesis import given
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("command", "shapes"),
    [
        ("git push --force origin main", ("force-push",)),
        ("git push -f", ("force-push",)),
        ("git push -uf origin feature", ("force-push",)),
        ("git push --force-with-lease", ("force-push",)),
        ("git push --force-with-lease=main:abc origin", ("force-push",)),
        ("git push origin +main", ("force-push",)),
        ("git -C repo push --force", ("force-push",)),
        ("cd repo && git push -f origin HEAD", ("force-push",)),
        ("git reset --hard HEAD~1", ("hard-reset",)),
        ("GIT_DIR=.git git reset --hard", ("hard-reset",)),
        ("sudo rm -rf /var/lib/app", ("recursive-delete",)),
        ("rm -r build", ("recursive-delete",)),
        ("rm -R ./dist", ("recursive-delete",)),
        ("rm --recursive ~/old", ("recursive-delete",)),
        ("rm -rf /tmp/x /home/u/y", ("recursive-delete",)),
        ("rm -rf /tmp/../etc", ("recursive-delete",)),
        ("rm -rf /tmp", ("recursive-delete",)),
        ('psql -c "DROP TABLE users"', ("drop-table",)),
        ("psql --command='drop   table users' db", ("drop-table",)),
        ('psql -c"DROP TABLE t"', ("drop-table",)),
        ('mysql -e "DROP TABLE t" db', ("drop-table",)),
        ('mariadb --execute="Drop Table t"', ("drop-table",)),
        ('sqlite3 app.db "DROP TABLE t;"', ("drop-table",)),
        ('psql -c "DROP\nTABLE t"', ("drop-table",)),
        ("git reset --hard; git push -f", ("hard-reset", "force-push")),
        # Not matched: safe or out of scope.
        ("git push origin main", ()),
        ("git push --force-nope", ()),
        ("git reset --soft HEAD~1", ()),
        ("git log --force", ()),
        ("rm -f file.txt", ()),
        ("rm -rf /tmp/build", ()),
        ("rm -rf /var/tmp/cache /private/tmp/x", ()),
        ("rm -rf $TMPDIR/work", ()),
        ('echo "git push --force"', ()),
        ('psql -c "SELECT 1"', ()),
        ('echo "DROP TABLE t" | psql', ()),
        ("grep -r 'rm -rf /' .", ()),
        ("git push 'unclosed", ()),
        ("", ()),
    ],
)
def test_shapes(command: str, shapes: tuple[str, ...]) -> None:
    assert match_command(command) == shapes


@given(st.text(max_size=300))
def test_matching_never_raises(command: str) -> None:
    assert isinstance(match_command(command), tuple)


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
    result = hub.ingest("claude", {"session_id": "c1", "hook_event_name": "PostToolUse", "tool_name": "Bash",
                                    "tool_input": {"command": "git push -f"}})
    assert result.irreversible == () and hub.irreversible_reports() == ()
    assert result.state == "working", "ordinary lifecycle hints remain"


def test_reports_stay_in_memory(make_hub: Callable[..., EventHub], tmp_path: Any) -> None:
    first = make_hub()
    first.ingest("claude", {"session_id": "c1", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "git reset --hard"}})
    assert make_hub().irreversible_reports() == ()
