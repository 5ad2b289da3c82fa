"""``tasks/<session>/<n>.json``: the task list the Task* tools keep, one file per task.

The current layout names the folder after the bare session id; older builds used
``session-<id>``, and a session's implicit team keeps ``session-<first 8 hex>``. Dot-files
(``.lock``, ``.highwatermark``) are not tasks. A task's creation time is the moment its
``TaskCreate`` result was written to the transcript when that was seen, else the file's
birth time (its mtime where the platform keeps none); its update time is the file's mtime.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.labels import one_line
from cargento.models import Task, TaskStatus
from cargento.readers import read_json_object
from cargento.sharedmethods import shared_methods

__all__ = ["Survey", "folder_names", "folders", "read_tasks", "stamp", "survey"]

_MAX_BYTES = 256 * 1024
_MAX_TASKS = 500
_STATUSES: dict[str, TaskStatus] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}


def folder_names(session_id: str) -> tuple[str, str, str]:
    """The names of the task folders that belong to *session_id*."""
    return (session_id, f"session-{session_id}", f"session-{session_id[:8]}")


def folders(tasks_root: Path, session_id: str) -> list[Path]:
    """The task folders that belong to *session_id*, existing or not."""
    return [tasks_root / name for name in folder_names(session_id)]


def _task_files(folder: Path) -> list[os.DirEntry[str]]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [e for e in entries if e.name.endswith(".json") and not e.name.startswith(".")][:_MAX_TASKS]


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Survey:
    """One task folder at a glance: enough for a fingerprint and a freshness hint."""

    #: ``name:size:mtime_ns`` of the task files a reading reads.
    parts: tuple[str, ...] = ()
    #: The newest mtime of any task file; ``None`` when the folder holds none.
    newest: datetime | None = None


def survey(folder: Path) -> Survey:
    """``stat`` every task file of *folder* once (a missing folder surveys as empty)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return Survey()
    parts: list[str] = []
    newest: datetime | None = None
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        try:
            st = entry.stat()
        except OSError:
            continue
        if len(parts) < _MAX_TASKS:
            parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        moment = datetime.fromtimestamp(st.st_mtime, UTC)
        newest = moment if newest is None or moment > newest else newest
    return Survey(tuple(parts), newest)


def stamp(surveys: list[Survey]) -> str:
    """The task files of a session's folders, for a fingerprint."""
    return ",".join(sorted(p for s in surveys for p in s.parts))


def _sort_key(task: Task) -> tuple[int, int, str]:
    ident = task.id or ""
    return (0, int(ident), ident) if ident.isdigit() else (1, 0, ident)


def read_tasks(folder_list: Sequence[Path], created: Mapping[str, datetime] | None = None) -> tuple[Task, ...]:
    """Every task in *folder_list*, sorted by numeric id; damaged files are skipped."""
    created = created or {}
    found: dict[str, Task] = {}
    for folder in folder_list:
        for entry in _task_files(folder):
            task = _read_one(entry, created)
            if task is not None and (task.id or entry.name) not in found:
                found[task.id or entry.name] = task
    return tuple(sorted(found.values(), key=_sort_key))


def _read_one(entry: os.DirEntry[str], created: Mapping[str, datetime]) -> Task | None:
    try:
        st = entry.stat()
        if st.st_size > _MAX_BYTES:
            return None
    except OSError:
        return None
    data = read_json_object(entry.path, max_bytes=_MAX_BYTES)
    if data is None:
        return None
    raw_id = data.get("id")
    ident = (
        str(raw_id) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else entry.name[: -len(".json")]
    )
    subject = data.get("subject")
    subject = one_line(subject) if isinstance(subject, str) and subject.strip() else "(untitled)"
    status = data.get("status")
    active = data.get("activeForm")
    updated = datetime.fromtimestamp(st.st_mtime, UTC)
    birth = getattr(st, "st_birthtime", None)
    born = created.get(ident) or (
        datetime.fromtimestamp(birth, UTC) if isinstance(birth, int | float) and birth > 0 else updated
    )
    return Task(
        subject=subject,
        status=_STATUSES.get(status, "pending") if isinstance(status, str) else "pending",
        active_form=one_line(active) if isinstance(active, str) and active.strip() else None,
        id=ident,
        created_at=born,
        updated_at=updated,
    )
