"""The board's revision: it moves when the content does, not when only the clock moved.

Content is everything a page draws except what moves with the clock alone: an idle row's
"last active … ago" detail, a turn's elapsed time and estimate, task ages, the board's time.
"""

from __future__ import annotations

from typing import Any

import attrs

from cargento.board.document import Board, BoardSession

__all__ = ["ContentHash", "session_content"]


def session_content(s: BoardSession) -> tuple[Any, ...]:
    """What of a row is content: everything but what moves with the clock alone."""
    return (
        s.key,
        s.display_id,
        s.project,
        s.cwd,
        s.title,
        s.state,
        s.state_source,
        None if s.state == "idle" else s.detail,
        None if s.state == "idle" else s.last_tool_raw,
        s.waiting,
        s.subagents,
        tuple((t.subject, t.status, t.active_form, t.id) for t in s.tasks),
        s.model,
        s.model_display,
        s.authority,
        s.output_tokens_per_min,
        s.output_tokens_total,
        s.started_at,
        s.last_active_at,
        s.turn is not None and s.turn.long,
        s.turn is not None and s.turn.eta_s is None,
        s.resume_command,
        s.resume_cwd,
        s.read_by_scanning,
        s.instruction,
        s.role,
        s.spacedock,
        s.loop,
        s.ended,
        s.missing,
        s.notes,
        s.faults,
        s.rate_limits,
        s.ai_units,
        # Every ``said`` is clock-free and every stamp absolute, so the evidence moves only
        # when what a reading rests on does.
        s.evidence,
        s.harness_version,
        s.unknown_records,
    )


@attrs.frozen(kw_only=True)
class _RowHash:
    """A published row object and the hash of its content."""

    row: BoardSession
    digest: int


class ContentHash:
    """Hashes successive boards' content; a row object that stood unchanged keeps its hash."""

    def __init__(self) -> None:
        #: The previous board's rows, by object id (the row is kept, so the id stays its own).
        self._rows: dict[int, _RowHash] = {}

    def of(self, board: Board) -> int:
        """The content hash of *board*."""
        known = self._rows
        fresh: dict[int, _RowHash] = {}
        parts = []
        for s in board.sessions:
            hit = known.get(id(s))
            if hit is None or hit.row is not s:
                hit = _RowHash(row=s, digest=hash(session_content(s)))
            fresh[id(s)] = hit
            parts.append(hit.digest)
        self._rows = fresh
        harnesses = tuple(
            (
                h.key,
                h.label,
                h.discovered,
                h.sessions,
                h.plugin,
                h.error,
                h.locations,
                h.problems,
                h.mark,
                h.resumable,
                h.prompt_as_goal,
                h.starting,
                h.process_coverage,
            )
            for h in board.harnesses
        )
        return hash((board.window_hours, board.all, harnesses, tuple(parts)))
