"""The board's revision: it moves when the content does, not when only the clock moved.

Content is everything a page draws except what moves with the clock alone: an idle row's
"last active … ago" detail, a turn's elapsed time and estimate, task ages, the board's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cargento.board.document import Board, BoardHarness, BoardSession

__all__ = ["content_hash", "session_content"]


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


def harness_digest(h: BoardHarness) -> int:
    """The content digest of one strip entry: what of it the content hash covers."""
    return hash(
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
    )


def content_hash(board: Board, digests: Sequence[int], harness_digests: Sequence[int] | None = None) -> int:
    """The content hash of *board*, whose rows' content digests (``hash(session_content(row))``,
    in board order) are *digests*: kept per row by :mod:`cargento.board.assembly`, so a row
    that stood is not hashed again; likewise *harness_digests*, the strip entries' digests in
    strip order (:func:`harness_digest`, kept by :class:`cargento.board.strip.HarnessStrip`)."""
    if harness_digests is None:
        harness_digests = [harness_digest(h) for h in board.harnesses]
    return hash((board.window_hours, board.all, tuple(harness_digests), tuple(digests)))
