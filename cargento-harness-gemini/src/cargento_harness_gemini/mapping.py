"""Gemini CLI chat state mapped to core readings, usage and model."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.evidence import shown_path, turn_record
from cargento.labels import clip
from cargento.models import HarnessContext, Instruction, ModelInfo, SessionReading, SessionRef, Usage
from cargento.readers import follow_summary
from cargento.timestamps import newest_plausible

from cargento_harness_gemini import discovery, locations, projects
from cargento_harness_gemini.accounts import history_note
from cargento_harness_gemini.history import FINISHED, History, finished_agent, history_for
from cargento_harness_gemini.transcript import ChatState

__all__ = ["TITLE_CHARS", "model_of", "reading", "usage_of"]

TITLE_CHARS = 80


def _mtime(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None


def follow(path: Path, ctx: HarnessContext) -> ChatState:
    """The state of the chat file *path*, updated with the lines appended since the previous
    call (a truncated, rotated or replaced file is read again from its first line)."""
    return follow_summary(ctx.cache, f"chat:{path}", path, ChatState, ChatState.apply)


def _cwd(state: ChatState, path: Path, ctx: HarnessContext) -> tuple[str | None, str | None]:
    """``(cwd, fallback project label)``: ``directories[0]``, else the project folder's mapping,
    else the folder name as the label."""
    if state.directories:
        return state.directories[0], None
    folder = locations.chats_dir(path).parent
    cwd = projects.cwd_of_folder(locations.root(ctx).path, folder, ctx)
    return (cwd, None) if cwd else (None, folder.name or None)


def reading(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one main chat or subagent recording."""
    path = Path(ref.path)
    state = follow(path, ctx)
    if state.header is None:
        return None
    history = history_for(state)
    cwd, project = _cwd(state, path, ctx)
    last_active = newest_plausible(ctx.now, history.last_at, state.updated_at, _mtime(path))
    reading = SessionReading(
        ref=ref,
        title=history.topic,
        cwd=cwd,
        project=project,
        started_at=state.header.started_at or history.first_at,
        last_active_at=last_active,
        turn=history.turn,
        thinking=history.thinking,
        last_tool=history.last_tool,
        detail="running a tool call" if history.tools_pending else None,
        tasks=history.tasks,
        instruction=Instruction(text=history.prompt, source="prompt", at=history.prompt_at) if history.prompt else None,
        notes=tuple(n for n in (history_note(last_active),) if n),
        evidence=turn_record(
            history.turn,
            shown_path(str(path), str(ctx.home)),
            ended="the newest model message has visible text and no tool call (or a subagent's complete_task)",
            opened="the newest prompt started a turn",
        ),
        unknown_records=state.drift.snapshot(),
    )
    if discovery.is_subagent_file(path):
        return _as_child(reading, history, path, ctx)
    if reading.title is None and state.summary:
        reading = attrs.evolve(reading, title=clip(state.summary, TITLE_CHARS) or None)
    return reading


def _as_child(reading: SessionReading, history: History, path: Path, ctx: HarnessContext) -> SessionReading:
    """A subagent recording: linked to its parent by folder name, named by the parent's
    ``invoke_agent`` call, finished once it completed its task or the parent recorded the call."""
    sid = reading.ref.session_id
    parent = discovery.parent_file(path, ctx)
    parent_id = parent[1] if parent else path.parent.name
    call = None
    if parent is not None:
        try:
            call = finished_agent(history_for(follow(parent[0], ctx)).agents, sid)
        except OSError:
            call = None
    turn = reading.turn
    done = history.completed or (call is not None and call.status in FINISHED)
    if done and turn.state != "ended":
        ended_at = history.last_at or reading.last_active_at
        turn = attrs.evolve(turn, state="ended", started_at=None, banked_s=0.0, ended_at=ended_at)
    return attrs.evolve(
        reading,
        title=clip(history.first_prompt, TITLE_CHARS) if history.first_prompt else None,
        parent_id=parent_id,
        agent_name=(call.name if call and call.name else None) or f"subagent {sid[:8]}",
        turn=turn,
    )


def model_of(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """The model the newest model message names, exactly as recorded; when no message still in
    the thread names one, the newest any message in the file named (a resumed session's
    ``$set.messages`` snapshot may be the only record of it once a later snapshot replaced it)."""
    state = follow(Path(reading.ref.path), ctx)
    model = history_for(state).model or state.model
    return ModelInfo(id=model) if model else None


def usage_of(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Output tokens: the session's own in the last ten minutes (core adds each folded
    subagent's rate), and a total over the session and its subagent recordings."""
    path = Path(reading.ref.path)
    history = history_for(follow(path, ctx))
    total = history.tokens_total
    measured = history.tokens_measured
    if not discovery.is_subagent_file(path):
        for child in discovery.children_of(path, reading.ref.session_id, ctx):
            try:
                child_history = history_for(follow(child, ctx))
            except OSError:
                continue
            total += child_history.tokens_total
            measured = measured or child_history.tokens_measured
    if not measured:
        return None
    return Usage(output_tokens_window=history.tokens.in_window(ctx.now), output_tokens_total=total)
