"""The display window: which sessions a board shows when it is not asked for all of them."""

from __future__ import annotations

from datetime import datetime

from cargento.board.document import BoardSession

__all__ = ["window_seconds", "within_window"]


def window_seconds(window_hours: float, all_sessions: bool) -> float | None:
    """The window plugins are told about (``HarnessContext.window_s``); ``None`` for all."""
    return None if all_sessions else window_hours * 3600.0


def within_window(sessions: list[BoardSession], moment: datetime, window_hours: float) -> list[BoardSession]:
    """The rows a windowed board keeps: every session not idle, and idle ones active within it."""
    limit = window_hours * 3600.0
    return [
        s
        for s in sessions
        if s.state != "idle" or (s.last_active_at is not None and (moment - s.last_active_at).total_seconds() <= limit)
    ]
