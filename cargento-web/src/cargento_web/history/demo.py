"""``--demo``: an earlier stretch of history for the demo's sessions, so the session page's
observed record and timeline show past turns, waits and a decision from the first minute."""

from __future__ import annotations

from datetime import datetime, timedelta

from cargento.board import Board, BoardSession

from cargento_web.history.store import Observation

__all__ = ["demo_history"]

#: (minutes after the stretch began, kind, source, state, previous, detail)
_SCRIPT: tuple[tuple[float, str, str, str | None, str | None, str | None], ...] = (
    (0, "state", "store", "working", "idle", None),
    (0, "turn_started", "store", None, None, None),
    (6, "state", "event:PermissionRequest", "needs_input", "working", None),
    (6, "wait_started", "event:PermissionRequest", None, None, "permission"),
    (9, "wait_ended", "event:PostToolUse", None, None, "permission"),
    (9, "state", "event:PostToolUse", "working", "needs_input", None),
    (20, "state", "event:Stop", "idle", "working", None),
    (20, "turn_ended", "event:Stop", None, None, None),
)


def _stretch(s: BoardSession, start: datetime) -> list[Observation]:
    return [
        Observation(
            harness=s.harness,
            session_id=s.session_id,
            kind=kind,
            at=start + timedelta(minutes=minutes),
            source=source,
            project=s.project,
            state=state,
            previous=previous,
            detail=detail,
        )
        for minutes, kind, source, state, previous, detail in _SCRIPT
    ]


def demo_history(board: Board, sessions: int = 40) -> list[Observation]:
    """One earlier turn per session that waited on the reader, ending before now."""
    now = board.generated_at
    made: list[Observation] = []
    for i, s in enumerate(board.sessions[:sessions]):
        made += _stretch(s, now - timedelta(minutes=90 - (i % 12) * 5))
    made.sort(key=lambda o: o.at)
    return made
