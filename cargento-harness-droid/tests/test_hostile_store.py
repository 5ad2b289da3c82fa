"""A permission-denied Droid session file is called that, not a file whose line 1 is bad.
The real ``cargento`` runs in a child process with a timeout, as an unprivileged user."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cargento.testing.hostile import NOBODY, open_up, run_cli, shared_home, unreadable_paths
from cargento_harness_droid.fixtures import DroidSession

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "droid"}


def test_a_permission_denied_session_file_is_named_with_its_cause() -> None:
    with shared_home() as home:
        sessions = [
            DroidSession.create(home, sid, cwd=f"/w/{sid}", at=NOW - timedelta(minutes=3)) for sid in ("a", "b")
        ]
        for s in sessions:
            s.prompt("hi", at=NOW - timedelta(minutes=2))
        open_up(home)
        sessions[0].path.chmod(0o600)
        report = run_cli(["--diagnose", "--json"], home, env=ENV, as_uid=NOBODY)
        assert report.returncode == 1, report.stdout + report.stderr
        doc = report.json()
        assert unreadable_paths(doc, "droid") == {str(sessions[0].path): "permission denied"}
        droid = next(h for h in doc["harnesses"] if h["key"] == "droid")
        assert not any("not a JSON record" in p for p in droid["problems"])
        run = run_cli(["--json", "--all"], home, env=ENV, as_uid=NOBODY)
        assert "b" in {s["session_id"] for s in run.json()["sessions"]}
