"""``--demo``: one session with a recorded departure and one with a consistent reading.

Seeded once, on the first board that holds two sessions: words are written through the
annotation store (when the annotation feature is part of the build), and each session's sidecar
gets one stored reading and its attempt, so the Drift section, the Drift mark, the Sessions
ranking and DEPARTURES RAISED TO YOU all show. Nothing is sent anywhere.
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from cargento.board import Board, BoardSession

if TYPE_CHECKING:
    from . import Observer

__all__ = ["seed"]

_DEPARTED = {
    "goal": "Fix the flaky retry test without touching the public API",
    "lines": ["The retry test passes ten runs in a row", "No public function changes its signature"],
    "rows": [
        ("consistent", "check ran: pytest tests/test_retry.py -x --count 10 — output ends: 10 passed in 4.1s"),
        ("departs", "file written (Edit): src/fetcher/api.py — the session renamed fetch() to fetch_with_retry()"),
    ],
}
_CONSISTENT = {
    "goal": "Document the new configuration keys",
    "lines": ["README lists every key with its default"],
    "rows": [("consistent", "file written (Write): docs/configuration.md")],
}


def _words(observer: Observer, session: BoardSession, words: dict[str, Any], at: datetime) -> int | None:
    store = observer.annotated.store if hasattr(observer.annotated, "store") else None
    if store is None:
        return None
    try:
        records: Any = importlib.import_module("cargento_web.annotations.records")
    except ImportError:
        return None
    revision = records.Revision(number=1, at=at, goal=words["goal"], lines=records.lines_of(words["lines"]))

    def change(current: Any) -> Any:
        if current is not None:
            return current
        return records.Words(harness=session.harness, sid=session.session_id, revisions=(revision,))

    store.update(session.harness, session.session_id, change, at)
    return 1


def _reading(observer: Observer, session: BoardSession, words: dict[str, Any], at: datetime) -> None:
    revision = _words(observer, session, words, at - timedelta(minutes=30))
    items = words["lines"] or [words["goal"]]
    rows = [
        {"n": n, "line": line, "verdict": verdict, "evidence": evidence}
        for n, (line, (verdict, evidence)) in enumerate(zip(items, words["rows"], strict=True), 1)
    ]
    reading = {
        "kind": "reading",
        "at": at.isoformat(),
        "revision": revision,
        "provider": "codex",
        "goal_source": "typed",
        "rows": rows,
        "departed": any(r["verdict"] == "departs" for r in rows),
        "withheld": False,
        "tool_output": session.harness == "claude",
        "bytes": 2048,
        "left_out": 0,
        "demo": True,
    }
    reading["recorded"] = observer.annotated.record(session.harness, session.session_id, reading)
    attempt = {
        "attempt": 1,
        "provider": "codex",
        "revision": revision,
        "started_at": (at - timedelta(seconds=20)).isoformat(),
        "ended_at": at.isoformat(),
        "spent": True,
        "ending": "stored",
    }

    def change(data: dict[str, Any]) -> None:
        if not data.get("readings"):
            data["attempts"] = [attempt]
            data["readings"] = [reading]

    observer.sidecars.update(session.harness, session.session_id, change)


def seed(observer: Observer, board: Board) -> bool:
    """Seed the demo's two sessions; True once done (or nothing can be seeded)."""
    candidates = [s for s in board.sessions if s.state != "needs_input"] or list(board.sessions)
    if len(candidates) < 2:
        return False
    now = datetime.now(UTC)
    _reading(observer, candidates[0], _DEPARTED, now - timedelta(minutes=12))
    _reading(observer, candidates[1], _CONSISTENT, now - timedelta(minutes=5))
    observer.context.changed()
    return True
