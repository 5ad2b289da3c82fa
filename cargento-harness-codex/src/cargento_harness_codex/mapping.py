"""A rollout summary mapped onto the core models."""

from __future__ import annotations

from cargento.evidence import shown_path, turn_record
from cargento.labels import clip
from cargento.models import HarnessContext, Instruction, ModelInfo, SessionReading, SessionRef, Usage
from cargento.timestamps import newest_plausible

from cargento_harness_codex.plan import steps_to_tasks
from cargento_harness_codex.rollout import Rollout
from cargento_harness_codex.summary import Said, Summary

__all__ = ["instruction", "model_info", "reading", "title", "usage"]


def instruction(summary: Summary) -> Instruction | None:
    """The strongest current instruction: the newest substantive prompt, else the agent's word."""
    prompt, substantive, statement = summary.prompt, summary.substantive, summary.statement
    if prompt is not None and substantive is prompt:
        return Instruction(text=prompt.text, source="prompt", at=prompt.at)
    if substantive is not None:
        return Instruction(text=substantive.text, source="earlier prompt", at=substantive.at)
    if statement is not None:
        return Instruction(text=statement.text, source="agent", at=statement.at)
    if prompt is not None:
        return Instruction(text=prompt.text, source="prompt", at=prompt.at)
    return None


def title(summary: Summary) -> str | None:
    """The first line of the chosen prompt, at most 80 characters."""
    chosen: Said | None = summary.substantive or summary.prompt
    if chosen is None:
        return None
    first = next((line for line in chosen.text.splitlines() if line.strip()), "")
    return clip(first, 80) or None


def reading(ref: SessionRef, rollout: Rollout, ctx: HarnessContext) -> SessionReading:
    """The session reading of one rollout."""
    meta, summary = rollout.meta, rollout.summary
    turn = summary.turn()
    child = meta.is_subagent
    return SessionReading(
        ref=ref,
        title=title(summary),
        cwd=meta.cwd,
        started_at=meta.started_at,
        last_active_at=newest_plausible(ctx.now, summary.last_at, ref.modified_at),
        turn=turn,
        thinking=turn.state == "open" and not summary.tool_open,
        last_tool=summary.last_tool,
        last_tool_raw=summary.last_tool_raw,
        tasks=steps_to_tasks(summary.plan) if summary.plan else (),
        parent_id=meta.parent_id if child else None,
        agent_name=meta.agent_name if child else None,
        agent_role=meta.role if child else None,
        instruction=instruction(summary),
        # Codex writes no role setting: a zero-exit boot result is what makes a first officer.
        role="spacedock:first-officer" if summary.spacedock is not None else None,
        spacedock=summary.spacedock,
        resume_command=None if child else f"codex resume {meta.id}",
        resume_cwd=None if child else meta.cwd,
        evidence=turn_record(
            turn,
            shown_path(ref.path, str(ctx.home)),
            ended="the rollout's newest turn boundary is a task_complete event",
            opened="the rollout's newest turn boundary is a task_started event",
        ),
        harness_version=meta.cli_version,
        unknown_records=summary.drift.snapshot(),
    )


def model_info(summary: Summary) -> ModelInfo | None:
    """The model of the newest ``turn_context``; ``None`` when no turn recorded one."""
    return ModelInfo(id=summary.model) if summary.model else None


def usage(rollout: Rollout, ctx: HarnessContext, descendant_totals: list[int | None]) -> Usage | None:
    """Output tokens of the last ten minutes, the session total (its subagent threads
    included) and the newest rate-limit snapshot."""
    summary = rollout.summary
    if summary.total is None and not summary.limits and not any(t is not None for t in descendant_totals):
        return None
    window = summary.window_tokens(ctx.now) if summary.total is not None else None
    totals = [t for t in (summary.total, *descendant_totals) if t is not None]
    return Usage(
        output_tokens_window=window,
        output_tokens_total=sum(totals) if totals else None,
        rate_limits=summary.limits,
    )
