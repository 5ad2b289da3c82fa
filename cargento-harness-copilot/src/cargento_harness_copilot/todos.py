"""Task rows from the per-session ``session.db`` ``todos`` table (Copilot's ``sql`` tool).

The table is ``todos(id, title, description, status, created_at, updated_at)`` with status
``pending``, ``in_progress``, ``done`` or ``blocked``; rows are listed in insertion order.
A session without ``session.db`` or without the table simply has no task rows; a database
that cannot be read raises :class:`~cargento.HarnessError` so the caller can name the
missing reading.
"""

from __future__ import annotations

import os

from cargento.errors import HarnessError
from cargento.labels import one_line
from cargento.models import Task, TaskStatus
from cargento.readers import sqlite
from cargento.timestamps import parse_ts

__all__ = ["MAX_TASKS", "read_todos", "task_status"]

MAX_TASKS = 200
_STATUS: dict[str, TaskStatus] = {
    "pending": "pending",
    "blocked": "pending",
    "in_progress": "in_progress",
    "done": "completed",
    "completed": "completed",
}


def task_status(value: object) -> TaskStatus | None:
    """The board status of a todo status; ``None`` for a status this reader does not know."""
    return _STATUS.get(value) if isinstance(value, str) else None


def read_todos(path: str | os.PathLike[str]) -> tuple[Task, ...]:
    """The todo rows of one ``session.db`` (empty when the file or the table is absent)."""
    name = os.fspath(path)
    if not os.path.isfile(name):
        return ()
    conn = sqlite.open_ro(name, text_errors="replace")
    try:
        cols = sqlite.columns(conn, "todos", name=name)
        if not cols:
            return ()
        if not {"id", "title", "status"} <= cols:
            raise HarnessError(f"{os.path.basename(name)}: todos table lacks id/title/status")
        stamps = ", ".join(c if c in cols else "NULL" for c in ("created_at", "updated_at"))
        rows = sqlite.query(
            conn, f"SELECT id, title, status, {stamps} FROM todos ORDER BY rowid LIMIT ?", (MAX_TASKS,), name=name
        )
    finally:
        conn.close()
    tasks = []
    for ident, title, status, created, updated in rows:
        mapped = task_status(status)
        subject = one_line(title) if isinstance(title, str) else ""
        if mapped is None or not subject:
            continue
        tasks.append(
            Task(
                subject=subject,
                status=mapped,
                id=ident if isinstance(ident, str) else None,
                created_at=parse_ts(created),
                updated_at=parse_ts(updated),
            )
        )
    return tuple(tasks)
