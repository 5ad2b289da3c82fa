"""An unreadable or non-regular Pi session file is named with its cause by ``--diagnose``.
The real ``cargento`` runs in a child process with a timeout."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import (
    served_and_unreadable,
    shared_home,
    unreadable_for_nobody,
)
from cargento_harness_pi.fixtures import PiSession, PiStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "pi"}


def _two(home: Path) -> list[PiSession]:
    store = PiStore(home)
    sessions = []
    for name in ("alpha", "beta"):
        session = store.session(cwd=f"/w/{name}", at=NOW - timedelta(minutes=3), eager=True)
        session.prompt("hello", NOW - timedelta(minutes=2))
        sessions.append(session)
    return sessions


def test_an_unreadable_session_file_is_named_with_its_cause() -> None:
    with shared_home() as home:
        sessions = _two(home)
        assert unreadable_for_nobody(home, "pi", [sessions[0].path], env=ENV) == {
            str(sessions[0].path): "permission denied"
        }


def test_a_pipe_with_a_session_name_is_named_and_the_rest_is_served(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sessions = _two(home)
    fifo = sessions[0].path.parent / "2026-01-01T00-00-00-000Z_11111111-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    served, unreadable = served_and_unreadable(home, "pi", env=ENV)
    assert served >= {s.session_id for s in sessions}
    assert unreadable == {str(fifo): "not a regular file (named pipe)"}
