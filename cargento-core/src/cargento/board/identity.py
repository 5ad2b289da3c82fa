"""A row's identity and display id.

A row is identified by ``(harness, project, session id)``; its key is ``harness:session id``.
The display id is the session id's first 8 characters, widened in steps of four only where two
rows of the same harness and project would otherwise show the same one.
"""

from __future__ import annotations

import attrs

from cargento.board.document import BoardSession
from cargento.labels import project_label
from cargento.models import SessionReading

__all__ = ["identity", "project_of", "row_key", "widen_display_ids"]

Identity = tuple[str, str, str]


def project_of(reading: SessionReading, home: str) -> str | None:
    """The project label: from the working directory (relative to *home*), else the plugin's."""
    return project_label(reading.cwd, home) or reading.project


def identity(harness: str, project: str | None, session_id: str) -> Identity:
    return (harness, project or "", session_id)


def row_key(harness: str, session_id: str) -> str:
    return f"{harness}:{session_id}"


def widen_display_ids(sessions: list[BoardSession]) -> list[BoardSession]:
    """Widen the 8-character display id, in steps of four, only where rows would collide."""
    groups: dict[tuple[str, str], list[int]] = {}
    for index, s in enumerate(sessions):
        groups.setdefault((s.harness, s.project or ""), []).append(index)
    out = list(sessions)
    for members in groups.values():
        by_prefix: dict[str, list[int]] = {}
        for i in members:
            by_prefix.setdefault(sessions[i].session_id[:8], []).append(i)
        for clash in by_prefix.values():
            ids = {sessions[i].session_id for i in clash}
            if len(clash) < 2 or len(ids) < 2:
                continue
            width = 8
            longest = max(len(x) for x in ids)
            while width < longest and len({x[:width] for x in ids}) < len(ids):
                width += 4
            for i in clash:
                out[i] = attrs.evolve(out[i], display_id=out[i].session_id[:width])
    return out
