"""Mapping what the store says about one session onto core's :class:`SessionReading`,
:class:`ModelInfo` and :class:`Usage`."""

from __future__ import annotations

from cargento.errors import HarnessError
from cargento.models import HarnessContext, Instruction, ModelInfo, SessionReading, SessionRef, Subagent, Usage
from cargento.readers import why
from cargento.timestamps import newest_plausible

from cargento_harness_claude import status, tasks
from cargento_harness_claude.discovery import Index, SessionFiles, index_for
from cargento_harness_claude.instruction import is_continuation, latest_instruction
from cargento_harness_claude.locations import project_fallback
from cargento_harness_claude.records import clean_prompt
from cargento_harness_claude.subagents import pill, summary_of
from cargento_harness_claude.transcript import MAX_COLD_SCAN_BYTES, Summary, follow

__all__ = ["ROLES", "files_for", "model_info", "read", "summary_for", "usage_of"]

#: The Spacedock roles an ``agentSetting`` may carry.
ROLES = frozenset({"spacedock:first-officer", "spacedock:ensign"})


def files_for(ref: SessionRef, ctx: HarnessContext) -> tuple[Index, SessionFiles | None]:
    index = index_for(ctx)
    return index, index.sessions.get(ref.session_id)


def summary_for(files: SessionFiles | None, ctx: HarnessContext) -> Summary | None:
    """The transcript summary of *files*, or ``None`` (task-only session, file gone)."""
    if files is None or files.transcript is None:
        return None
    try:
        return follow(ctx.cache, files.transcript)
    except OSError:
        return None


def _pills(index: Index, files: SessionFiles, ctx: HarnessContext) -> list[Subagent]:
    pills = []
    for agent in files.agents:
        made = pill(agent, ctx)
        if made is not None:
            pills.append(made[0])
    for child_id in files.children:
        child = index.sessions.get(child_id)
        if child is None:
            continue
        owner = child.head.agent_name if child.head is not None else None
        for agent in child.agents:
            made = pill(agent, ctx, spawned_by=owner)
            if made is not None:
                pills.append(made[0])
    return pills


def _instruction(summary: Summary) -> Instruction | None:
    found = latest_instruction(list(summary.prompts))
    if found is None and not summary.prompts and summary.last_prompt and not is_continuation(summary.last_prompt):
        return Instruction(text=clean_prompt(summary.last_prompt, 200), source="prompt", at=None)
    return found


def read(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one session; ``None`` when the file is gone or holds only metadata records."""
    index, files = files_for(ref, ctx)
    if files is None:
        return None
    if files.transcript is None:
        return _task_only(ref, files)
    try:
        summary = follow(ctx.cache, files.transcript)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HarnessError(f"cannot read {files.transcript}: {why(exc)}") from exc
    if not summary.is_session:
        return None
    pills = _pills(index, files, ctx)
    own = summary.last_at or files.mtime
    last = newest_plausible(ctx.now, own, *(p.last_active_at for p in pills))
    pid = status.trusted(files, summary)
    turn = status.apply(summary.turn(), pid, summary)
    is_child = files.parent_id is not None or (summary.agent_name is not None and summary.team_name is not None)
    cwd = summary.cwd or (files.pid.cwd if files.pid is not None else None)
    title = summary.title or (clean_prompt(summary.first_prompt) if summary.first_prompt else None) or None
    notes: list[str] = []
    if is_child and files.parent_id is None:
        notes.append(f"teammate of {summary.team_name}; its lead session was not found")
    missing: list[str] = []
    if summary.partial:
        missing.append(
            f"output tokens total: only the last {MAX_COLD_SCAN_BYTES // (1024 * 1024)} MB of this transcript were read"
        )
    open_turn = turn.state == "open"
    return SessionReading(
        ref=ref,
        title=title,
        cwd=cwd,
        project=None if cwd else project_fallback(files.project_dir, ctx.home),
        started_at=summary.first_at,
        last_active_at=last,
        turn=turn,
        thinking=summary.thinking,
        last_tool=summary.last_tool if open_turn or turn.state == "unknown" else None,
        last_tool_raw=summary.last_tool_raw if open_turn or turn.state == "unknown" else None,
        tasks=tasks.read_tasks(files.task_folders, summary.task_created),
        subagents=tuple(pills),
        parent_id=files.parent_id,
        agent_name=(files.head.agent_name if files.head else None) or summary.agent_name if is_child else None,
        instruction=_instruction(summary),
        role=summary.agent_setting if summary.agent_setting in ROLES else None,
        spacedock=summary.spacedock,
        loop=summary.loop() if turn.state != "ended" else None,
        resume_command=None if is_child else f"claude --resume {files.session_id}",
        resume_cwd=None if is_child else cwd,
        missing=tuple(missing),
        notes=tuple(notes),
        evidence=status.evidence(files, summary, str(ctx.home)),
        harness_version=summary.version,
        unknown_records=summary.drift.snapshot(),
    )


def _task_only(ref: SessionRef, files: SessionFiles) -> SessionReading | None:
    found = tasks.read_tasks(files.task_folders)
    if not found:
        return None
    created = [t.created_at for t in found if t.created_at is not None]
    return SessionReading(
        ref=ref,
        started_at=min(created) if created else None,
        last_active_at=files.mtime,
        tasks=found,
        notes=("task list only: no transcript of this session was found",),
    )


def model_info(files: SessionFiles | None, ctx: HarnessContext) -> ModelInfo | None:
    """The model of the newest assistant record, with its marketing name where recorded."""
    summary = summary_for(files, ctx)
    if summary is None or summary.model is None:
        return None
    return ModelInfo(id=summary.model, display=summary.model_names.get(summary.model))


def usage_of(files: SessionFiles | None, ctx: HarnessContext) -> Usage | None:
    """Output tokens of the session and of the subagents in its folder: the last ten
    minutes, and the total (``None`` when any transcript was read only in part)."""
    summary = summary_for(files, ctx)
    if files is None or summary is None:
        return None
    window = summary.window_tokens(ctx.now)
    total = summary.total
    for agent in files.agents:
        child = summary_of(ctx.cache, agent)
        if child is None:
            total = None
            continue
        window += child.window_tokens(ctx.now)
        total = None if total is None or child.total is None else total + child.total
    return Usage(output_tokens_window=window, output_tokens_total=total)
