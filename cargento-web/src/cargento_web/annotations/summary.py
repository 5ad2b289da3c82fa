"""The store's entries as the page reads them: one JSON object per session.

:func:`entry_view` is the whole entry (every retained revision, the readings) for
``GET /api/annotations`` and the reply of ``POST /api/annotate``; :func:`board_share` is what
``/api/data`` carries under ``annotations``: the current words of the sessions on the board only,
whether each binding is exact, and a stamp that moves whenever the store does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from cargento.board import Board
from cargento.timestamps import iso

from cargento_web.annotations.records import Discard, Entry, Foreign, Revision, Words
from cargento_web.annotations.store import AnnotationStore, Loaded

__all__ = ["bindings", "board_share", "entry_view", "revision_view"]


def revision_view(revision: Revision) -> dict[str, Any]:
    return {
        "revision": revision.number,
        "at": iso(revision.at),
        "goal": revision.goal,
        "goal_source": revision.goal_source,
        "lines": [{"text": line.text, "source": line.source, "entry": line.entry} for line in revision.lines],
    }


def entry_view(entry: Entry, *, held: bool = False, current_only: bool = False) -> dict[str, Any]:
    """One session's entry for the page (*held*: its write failed, it is held for this run)."""
    base: dict[str, Any] = {"harness": entry.harness, "sid": entry.sid, "key": f"{entry.harness}:{entry.sid}"}
    if isinstance(entry, Foreign):
        return {**base, "kind": "foreign", "version": entry.version}
    if isinstance(entry, Discard):
        return {**base, "kind": "discard", "at": iso(entry.at), "checked": entry.checked}
    view = {
        **base,
        "kind": "words",
        "persisted": not held,
        **revision_view(entry.current),
        "settled_through": iso(entry.settled_through),
        "settled_revision": entry.settled_revision,
        "unsettled_after": iso(entry.unsettled_after),
        "readings": len(entry.readings),
    }
    if not current_only:
        view["revisions"] = [revision_view(r) for r in entry.revisions]
        view["reading_records"] = [dict(r) for r in entry.readings]
    return view


def bindings(sids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """For each of *sids* that is a prefix of another or has another as its prefix, how many
    others it shares words with (sorting puts every extension of an id right after it)."""
    ordered = sorted(set(sids))
    shared: dict[str, set[str]] = {}
    for index, sid in enumerate(ordered):
        for longer in ordered[index + 1 :]:
            if not longer.startswith(sid):
                break
            shared.setdefault(sid, set()).add(longer)
            shared.setdefault(longer, set()).add(sid)
    return {sid: {"exact": False, "shared_with": len(others)} for sid, others in shared.items()}


def _stamp(loaded: Loaded, held: Iterable[tuple[str, str]], write_error: str | None) -> str:
    digest = hashlib.sha256()
    digest.update(repr((loaded.state, loaded.detail, sorted(held), write_error)).encode())
    for entry in loaded.entries.values():
        if isinstance(entry, Words):
            digest.update(repr((entry.key, entry.current.number, entry.settled_through, len(entry.readings))).encode())
        elif isinstance(entry, Discard):
            digest.update(repr((entry.key, "discard", entry.at)).encode())
        else:
            digest.update(repr((entry.key, "foreign", entry.version)).encode())
    return digest.hexdigest()[:16]


def board_share(store: AnnotationStore, board: Board | None) -> dict[str, Any]:
    """The ``annotations`` key of ``/api/data``."""
    loaded = store.view()
    held = store.held
    entries = {e.key: e for e in store.entries()}
    sessions: dict[str, Any] = {}
    checked_any = any(
        (isinstance(e, Words) and e.readings) or (isinstance(e, Discard) and e.checked) for e in entries.values()
    )
    if board is not None:
        by_harness: dict[str, list[str]] = {}
        for s in board.sessions:
            by_harness.setdefault(s.harness, []).append(s.session_id)
        shared = {h: bindings(sids) for h, sids in by_harness.items()}
        for s in board.sessions:
            entry = entries.get((s.harness, s.session_id))
            binding = shared[s.harness].get(s.session_id, {"exact": True})
            if entry is None and binding["exact"]:
                continue
            row: dict[str, Any] = {"binding": binding}
            if entry is not None:
                row.update(entry_view(entry, held=entry.key in held, current_only=True))
            sessions[s.key] = row
    return {
        "on": True,
        "state": loaded.state,
        "detail": loaded.detail,
        "write_error": store.write_error,
        "stamp": _stamp(loaded, held, store.write_error),
        "retained": sum(isinstance(e, Words | Discard) for e in entries.values()),
        "checked_any": checked_any,
        "sessions": sessions,
    }


def all_views(store: AnnotationStore) -> list[Mapping[str, Any]]:
    held = store.held
    return [entry_view(e, held=e.key in held) for e in store.entries()]
