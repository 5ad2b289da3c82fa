"""An Antigravity conversation mapped to a core reading, usage and model."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.errors import HarnessError
from cargento.evidence import shown_path
from cargento.labels import clip
from cargento.models import Evidence, HarnessContext, Instruction, ModelInfo, SessionReading, SessionRef, Usage
from cargento.passmemo import once_per_pass
from cargento.rates import tokens_in_window
from cargento.sharedrepr import shared_repr
from cargento.timestamps import newest_plausible
from cargento.turns import TurnClock

from cargento_harness_antigravity import locations
from cargento_harness_antigravity.database import Conversation, read_conversation, read_trajectory
from cargento_harness_antigravity.discovery import activity
from cargento_harness_antigravity.metadata import PROMPT_STEP, RESPONSE_STEP, Trajectory
from cargento_harness_antigravity.workspace import LogFacts, log_facts, workspaces

__all__ = ["MAX_HOPS", "TITLE_CHARS", "conversation_for", "model_of", "reading", "usage_of"]

TITLE_CHARS = 80
#: How far up a subagent chain a workspace is looked for.
MAX_HOPS = 8


@shared_repr
@attrs.frozen(repr=False, eq=False)
class _Shared:
    """What every conversation of one pass reads alike: the root, the workspace cache, the logs."""

    root: Path
    workspaces: dict[str, str]
    logs: LogFacts


def _shared(ctx: HarnessContext) -> _Shared:
    def make() -> _Shared:
        root = locations.root(ctx).path
        return _Shared(root=root, workspaces=workspaces(root, ctx), logs=log_facts(root, ctx))

    return once_per_pass(ctx, "pass:shared", make)


def _workspace(conv_id: str, conv: Conversation, shared: _Shared, ctx: HarnessContext) -> str | None:
    """The cache's workspace for this conversation, else the logs'; a subagent the cache does
    not name takes its nearest ancestor's."""
    cache = shared.workspaces
    logs = shared.logs.workspaces
    root = shared.root
    ident: str | None = conv_id
    trajectory: Trajectory | None = conv.trajectory
    for _ in range(MAX_HOPS):
        if ident is None:
            return None
        found = cache.get(ident) or logs.get(ident)
        if found:
            return found
        ident = trajectory.parent_id if trajectory else None
        if ident is None:
            return None
        trajectory = read_trajectory(root / "conversations" / f"{ident}.db", ctx)
    return None


def reading(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one conversation database (and the cache and logs for its workspace and prompt);
    ``None`` when the database is gone (deleted since discovery listed it)."""
    path = Path(ref.path)
    try:
        conv = read_conversation(path, ctx)
    except HarnessError:
        # A conversation deleted between discovery and this read (the CLI's own clean-up, a
        # rotation) has no row, as a session whose file is gone reads elsewhere: it is not a
        # store that could not be read. Anything still at the path (a dangling link included)
        # is, and stays a fault.
        if not os.path.lexists(path):
            return None
        raise
    shared = _shared(ctx)
    clock = TurnClock()
    last_tool: str | None = None
    last_step: datetime | None = None
    prompt_at: datetime | None = None
    first_at: datetime | None = None
    for step in conv.steps:
        if step.at is not None:
            first_at = first_at or step.at
            last_step = step.at if last_step is None or step.at > last_step else last_step
        if step.step_type == PROMPT_STEP:
            # No turn end is recorded: the previous turn ended with its last step.
            if clock.state == "open" and clock.last is not None:
                clock.end(clock.last)
            clock.start(step.at)
            prompt_at = step.at or prompt_at
        else:
            clock.activity(step.at)
        if step.action or step.summary:
            last_tool = step.action or step.summary
    seen = activity(path)
    written = datetime.fromtimestamp(seen[0], UTC) if seen else None
    typed = shared.logs.prompts.get(path.stem)
    trajectory = conv.trajectory
    first_line = next((line for line in typed.splitlines() if line.strip()), "") if typed else ""
    title = clip(first_line, TITLE_CHARS) or None
    prompt = clip(typed, 400) or None if typed else None
    return SessionReading(
        ref=ref,
        title=title or None,
        cwd=_workspace(path.stem, conv, shared, ctx),
        started_at=first_at,
        last_active_at=newest_plausible(ctx.now, written, last_step),
        turn=clock.evidence(boundaries_recorded=False),
        thinking=bool(conv.steps) and conv.steps[-1].step_type == PROMPT_STEP,
        last_tool=last_tool,
        instruction=Instruction(text=prompt, source="prompt", at=prompt_at) if prompt else None,
        parent_id=trajectory.parent_id,
        agent_name=(trajectory.role or trajectory.kind) if trajectory.parent_id else None,
        agent_role=trajectory.kind if trajectory.parent_id else None,
        missing=conv.missing,
        unknown_records=conv.unknown_records(),
        evidence=_evidence(path, written, last_step, ctx),
    )


def _evidence(
    path: Path, written: datetime | None, last_step: datetime | None, ctx: HarnessContext
) -> tuple[Evidence, ...]:
    """The conversation database's (and WAL's) write time and its newest step's stamp:
    Antigravity records no turn end, so these are what recency reads."""
    shown = shown_path(str(path), str(ctx.home))
    items = []
    if written is not None:
        items.append(
            Evidence(
                reading="state",
                signal="store record",
                source=f"{shown} (+ -wal)",
                observed_at=written,
                said="the conversation database's last write (conversation content is not decoded)",
            )
        )
    if last_step is not None:
        items.append(
            Evidence(
                reading="state",
                signal="store record",
                source=f"{shown} · step metadata",
                observed_at=last_step,
                said="the newest step's stamp",
            )
        )
    return tuple(items)


def conversation_for(reading: SessionReading, ctx: HarnessContext) -> Conversation:
    """The conversation :func:`reading` read, from the cache while the database is unchanged."""
    path = Path(reading.ref.path)
    cached = ctx.cache.get(f"conversation:{path}")
    try:
        inode = os.stat(path).st_ino
    except OSError:
        inode = None
    if cached is not None and cached[0] == inode:
        conv: Conversation = cached[1]
        return conv
    return read_conversation(path, ctx)


def model_of(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """The model display name the newest generation metadata frames, verbatim."""
    name = conversation_for(reading, ctx).model
    return ModelInfo(id=name, display=name) if name else None


def usage_of(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Output tokens of model-response steps: the last ten minutes and the total. Unmeasured
    (``None``) when the steps could not be read."""
    conv = conversation_for(reading, ctx)
    if any(m.startswith("steps") for m in conv.missing):
        return None
    events = [(s.at, s.output_tokens or 0) for s in conv.steps if s.step_type == RESPONSE_STEP]
    total = conv.settled_tokens + sum(n for _, n in events)
    return Usage(output_tokens_window=tokens_in_window(events, ctx.now), output_tokens_total=total)
