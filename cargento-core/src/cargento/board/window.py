"""The display window: which sessions a board shows when it is not asked for all of them."""

from __future__ import annotations

from datetime import datetime, timedelta

from cargento.board.document import BoardSession

__all__ = ["in_window", "window_seconds"]


def window_seconds(window_hours: float, all_sessions: bool) -> float | None:
    """The window plugins are told about (``HarnessContext.window_s``); ``None`` for all."""
    return None if all_sessions else window_hours * 3600.0


def in_window(session: BoardSession, moment: datetime, limit_s: float) -> tuple[bool, datetime | None]:
    """Does a windowed board of *limit_s* seconds show *session* at *moment* (every session
    not idle, and idle ones active within it), and, for a shown idle one, the moment it leaves
    (an idle row not shown never comes back as the clock moves on)?"""
    if session.state != "idle":
        return True, None
    last = session.last_active_at
    if last is not None and (moment - last).total_seconds() <= limit_s:
        return True, last + timedelta(seconds=limit_s)
    return False, None
