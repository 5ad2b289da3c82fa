"""A named pipe, a link loop or an unreadable rollout never blocks the board nor hides a session.

The real ``cargento`` runs in a child process with a timeout, so a blocking reader fails the
test instead of hanging the suite; an unreadable file is made real by running the child as an
unprivileged user.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.hostile import (
    served_and_unreadable,
    shared_home,
    unreadable_for_nobody,
)
from cargento_harness_codex.fixtures import CodexSession, CodexStore

NOW = datetime.now(UTC).replace(microsecond=0)
ENV = {"CARGENTO_LOAD_PLUGINS": "codex"}


def _two(home: Path) -> list[CodexSession]:
    store = CodexStore(home)
    return [store.session(cwd=f"/w/{name}", at=NOW - timedelta(minutes=5)) for name in ("alpha", "beta")]


def test_a_pipe_and_link_loops_among_rollouts_hide_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sessions = _two(home)
    day = sessions[0].path.parent
    fifo = day / "rollout-2026-01-01T00-00-00-11111111-0000-4000-8000-000000000000.jsonl"
    os.mkfifo(fifo)
    loop = day / "rollout-2026-01-01T00-00-01-22222222-0000-4000-8000-000000000000.jsonl"
    os.symlink(loop.name, loop)
    month_loop = day.parent / "31"
    os.symlink(month_loop.name, month_loop)
    served, unreadable = served_and_unreadable(home, "codex", env=ENV)
    assert served >= {s.session_id for s in sessions}
    assert unreadable == {
        str(fifo): "not a regular file (named pipe)",
        str(loop): "symlink loop",
        str(month_loop): "symlink loop",
    }


def test_an_unreadable_rollout_is_named_with_its_cause() -> None:
    with shared_home() as home:
        sessions = _two(home)
        assert unreadable_for_nobody(home, "codex", [sessions[0].path], env=ENV) == {
            str(sessions[0].path): "permission denied"
        }
