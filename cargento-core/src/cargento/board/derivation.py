"""One folded session becomes its published row: state, detail, turn, identity, redaction.

An idle row whose inputs are the same objects (or equal) as at the previous build, and whose
"last active … ago" wording has not moved, is the previous build's row object itself: nothing
about it is derived again, and its revision hash is reused (see :mod:`cargento.board.revision`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from cargento.board.detail import ago, detail_line
from cargento.board.document import BoardSession, BoardTask, BoardTurn, Waiting
from cargento.board.evidence import row_evidence
from cargento.board.folding import subagents_of
from cargento.board.identity import identity, project_of, row_key
from cargento.board.redaction import redact_session
from cargento.board.session_row import SessionKey, SessionRow
from cargento.board.state import Overlay, age_subagent, is_working, live_overlay, resolve_state
from cargento.models import Task
from cargento.sharedrepr import shared_repr
from cargento.timestamps import newest_plausible
from cargento.turns import estimate, withheld_harnesses

__all__ = ["RowDeriver", "board_task"]


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _IdleRow:
    """An idle row as last derived, with what it was derived from."""

    #: The derivation's inputs, compared item by item (identity, then equality): the reading,
    #: the gate, model and usage answers, the overlay, the rate, the last activity, the
    #: store's own state verdict and the subagents (both move with the clock), then every
    #: child's reading and every child's model.
    inputs: tuple[Any, ...]
    #: The "… ago" wording it showed.
    age: str
    row: BoardSession


class RowDeriver:
    """Derives board rows, keeping the last idle row of each session for reuse."""

    def __init__(self) -> None:
        self._idle: dict[SessionKey, _IdleRow] = {}

    def forget(self, ident: SessionKey) -> None:
        """Drop what is kept for a session that left the board."""
        self._idle.pop(ident, None)

    def derive(self, row: SessionRow, now: datetime, overlays: Mapping[SessionKey, Overlay], home: str) -> BoardSession:
        """The published row of *row* (already folded) at *now*; *home* labels its project."""
        reading = row.reading
        info = row.info
        sid = reading.ref.session_id
        subagents = [age_subagent(sub, now) for sub in subagents_of(row, now)]
        for sub in subagents:
            if sub.last_active_at is not None:
                row.last_active = newest_plausible(now, row.last_active, sub.last_active_at)
        overlay = live_overlay(overlays.get((info.key, sid)), now)
        state, state_source, gate = resolve_state(row, now, subagents, overlay)
        idle_for = (now - row.last_active).total_seconds() if row.last_active else None
        inputs: tuple[Any, ...] | None = None
        if state == "idle" and not any(t.created_at is not None and t.status != "completed" for t in reading.tasks):
            inputs = (
                reading,
                row.gate,
                row.model,
                row.usage,
                overlay,
                row.rate,
                row.last_active,
                # What the clock alone moves in an idle row's evidence: the store's own
                # verdict (a claim of idle over a store still inside the working window
                # overrules it; a minute on, the store reads idle too) and its subagents'.
                is_working(row, now, subagents)[1],
                tuple(subagents),
                *(c.reading for c in row.children),
                *(c.model for c in row.children),
            )
            memo = self._idle.get((info.key, sid))
            if (
                memo is not None
                and len(memo.inputs) == len(inputs)
                and all(a is b or a == b for a, b in zip(memo.inputs, inputs, strict=True))
                and memo.age == ago(idle_for)
            ):
                return memo.row
        tasks = tuple(board_task(t, now) for t in reading.tasks)
        detail = detail_line(
            state=state,
            state_source=state_source,
            gate=gate,
            overlay=overlay,
            reading=reading,
            tasks=tasks,
            subagents=subagents,
            idle_for=idle_for,
        )
        evidence = row_evidence(
            row=row,
            now=now,
            state=state,
            state_source=state_source,
            gate=gate,
            overlay=overlay,
            subagents=subagents,
            tasks=tasks,
            detail=detail,
            home=home,
        )
        figures = estimate(reading.turn, now) if state == "working" else None
        if figures is not None and figures.eta_s is not None and info.key in withheld_harnesses():
            # Measured no better than knowing nothing for this harness (docs/turn-eta.md).
            figures = attrs.evolve(figures, eta_s=None)
        project = project_of(reading, home)
        made = redact_session(
            BoardSession(
                harness=info.key,
                harness_label=info.label,
                session_id=sid,
                key=row_key(info.key, sid),
                display_id=sid[:8],
                identity=identity(info.key, project, sid),
                project=project,
                cwd=reading.cwd,
                title=reading.title,
                state=state,
                detail=detail,
                last_tool_raw=reading.last_tool_raw if reading.last_tool and detail == reading.last_tool else None,
                waiting=Waiting(kind=gate.kind, text=gate.text, since=gate.since, source=gate.source) if gate else None,
                subagents=tuple(subagents),
                tasks=tasks,
                tasks_done=sum(t.status == "completed" for t in tasks),
                model=row.model.id if row.model else None,
                model_display=(row.model.display or row.model.id) if row.model else None,
                authority=row.model.authority if row.model else None,
                output_tokens_per_min=row.rate,
                output_tokens_total=row.usage.output_tokens_total if row.usage else None,
                started_at=reading.started_at,
                last_active_at=row.last_active,
                turn=BoardTurn(elapsed_s=figures.elapsed_s, eta_s=figures.eta_s, long=figures.long)
                if figures
                else None,
                resume_command=reading.resume_command if info.resumable else None,
                resume_cwd=reading.resume_cwd if info.resumable else None,
                read_by_scanning=not info.turn_end_observable,
                instruction=reading.instruction,
                role=reading.role,
                spacedock=reading.spacedock,
                loop=reading.loop,
                ended=reading.ended,
                missing=reading.missing,
                notes=reading.notes,
                faults=tuple(row.faults),
                rate_limits=row.usage.rate_limits if row.usage else (),
                ai_units=row.usage.ai_units if row.usage else None,
                state_source=state_source,
                evidence=evidence,
                harness_version=reading.harness_version,
                unknown_records=reading.unknown_records,
            )
        )
        if inputs is not None:
            self._idle[(info.key, sid)] = _IdleRow(inputs=inputs, age=ago(idle_for), row=made)
        else:
            self._idle.pop((info.key, sid), None)
        return made


def board_task(task: Task, now: datetime) -> BoardTask:
    """A plugin's task as the board shows it, with its age."""
    age: float | None = None
    if task.created_at is not None:
        end = task.updated_at if task.status == "completed" and task.updated_at else now
        age = max(0.0, (end - task.created_at).total_seconds())
    return BoardTask(
        subject=task.subject,
        status=task.status,
        active_form=task.active_form,
        id=task.id,
        created_at=task.created_at,
        updated_at=task.updated_at,
        age_s=None if age is None else round(age, 1),
    )
