"""A harness plugin for "example-agent", a toy agent that keeps one JSONL file per session:

    ~/.example-agent/sessions/<session-id>.jsonl      (EXAMPLE_AGENT_HOME relocates the root)

    {"type": "start", "cwd": "/w/proj", "at": "2026-11-30T10:00:00Z"}
    {"type": "prompt", "text": "Add a retry", "at": "..."}
    {"type": "tool", "name": "bash", "at": "..."}
    {"type": "reply", "model": "toy-1", "output_tokens": 120, "at": "..."}
    {"type": "turn_end", "at": "..."}

The agent also runs hooks, configured in ``~/.example-agent/settings.json``: each hook gets a
JSON body on stdin naming its ``event`` (``prompt``, ``approval.asked``, ``approval.answered``,
``turn.end``). The plugin declares that vocabulary as its event lane (:func:`event_lane`, with
:func:`refine_event` wording an approval from its ``question``), and declares the settings file
as a hook target (:func:`hook_targets`) so ``cargento hooks install example`` wires Cargento's
event forwarder into it. Nothing in Cargento's core or web names this harness.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from cargento import (
    Discovery,
    HarnessContext,
    HarnessInfo,
    ModelInfo,
    SessionReading,
    SessionRef,
    Usage,
    hookimpl,
)
from cargento.errors import HarnessDataMissing
from cargento.labels import clip
from cargento.locations import describe, resolve_root
from cargento.models import HarnessMark
from cargento.rates import tokens_in_window
from cargento.readers import cached_summary, follow_summary
from cargento.timestamps import parse_ts
from cargento.turns import TurnClock

if TYPE_CHECKING:
    # The event types load inside the hooks that build them: a run that never asks for an
    # event lane (``cargento --json``) never imports cargento.events.
    from cargento.events import EventLane, HookTarget, LifecycleEvent

KEY = "example"
VARIABLE = "EXAMPLE_AGENT_HOME"
DEFAULT = ".example-agent"
#: The agent's hook events, in the order its settings file lists them.
HOOK_EVENTS = ("prompt", "approval.asked", "approval.answered", "turn.end")
WAIT_COVERAGE = (
    "Waits are reported only while its approval hook runs Cargento's forwarder (cargento hooks install example)."
)


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Example Agent",
        turn_end_observable=True,
        reports_waits=True,
        wait_coverage=WAIT_COVERAGE,
        mark=HarnessMark(monogram="EX", hue=140, shape="hex"),
        relocation_variables=(VARIABLE,),
    )


@hookimpl
def event_lane() -> EventLane:
    from cargento.events import EventLane

    return EventLane(
        events={
            "prompt": "turn_started",
            "approval.asked": "wait_opened",
            "approval.answered": "wait_closed",
            "turn.end": "turn_stopped",
        },
        adapter="example-agent hooks (settings.json)",
    )


@hookimpl
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    """An approval says what it asks: its ``question``, clipped."""
    question = body.get("question")
    if event.kind == "wait_opened" and isinstance(question, str) and question.strip():
        return attrs.evolve(event, gate_kind="question", gate_text=clip(question.strip(), 120))
    return event


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento.events import HookTarget

    base = env.get(VARIABLE, "").strip()
    return (
        HookTarget(
            name=KEY,
            style="settings",
            path=(Path(base) if base else home / DEFAULT) / "settings.json",
            description="every hook event in the example agent's settings.json",
            forwarder="event_hook",
            arguments=(KEY,),
            events=HOOK_EVENTS,
        ),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    root = resolve_root(ctx, variable=VARIABLE, default=DEFAULT)
    sessions_dir = root.path / "sessions"
    where = describe(sessions_dir, origin=root.origin)
    refs = []
    if where.status == "present":
        for path in sorted(sessions_dir.glob("*.jsonl")):
            st = path.stat()
            refs.append(
                SessionRef(
                    harness=KEY,
                    session_id=path.stem,
                    path=str(path),
                    location=where.path,
                    modified_at=datetime.fromtimestamp(st.st_mtime, UTC),
                    fingerprint=f"{st.st_size}:{st.st_mtime_ns}",
                )
            )
    return Discovery(locations=(where,), sessions=tuple(refs))


class _Summary:
    """What one file's records add up to, kept between refreshes by ``follow_summary``."""

    def __init__(self) -> None:
        self.cwd: str | None = None
        self.title: str | None = None
        self.model: str | None = None
        self.last: datetime | None = None
        self.last_tool: str | None = None
        self.tokens: list[tuple[datetime | None, int]] = []
        self.turns = TurnClock()

    def feed(self, record: dict[str, Any]) -> None:
        at = parse_ts(record.get("at"))
        kind = record.get("type")
        if at is not None and (self.last is None or at > self.last):
            self.last = at
        if kind == "start" and isinstance(record.get("cwd"), str):
            self.cwd = record["cwd"]
        elif kind == "prompt" and isinstance(record.get("text"), str):
            self.title = self.title or clip(record["text"])
            self.turns.start(at)
        elif kind == "tool" and isinstance(record.get("name"), str):
            self.last_tool = record["name"]
            self.turns.activity(at)
        elif kind == "reply":
            if isinstance(record.get("model"), str):
                self.model = record["model"]
            tokens = record.get("output_tokens")
            if isinstance(tokens, int) and tokens >= 0:
                self.tokens.append((at, tokens))
            self.turns.activity(at)
        elif kind == "turn_end":
            self.turns.end(at)


def _summary(ref: SessionRef, ctx: HarnessContext) -> _Summary:
    return follow_summary(ctx.cache, ref.path, ref.path, _Summary, _Summary.feed)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    try:
        s = _summary(ref, ctx)
    except HarnessDataMissing:
        return None
    return SessionReading(
        ref=ref,
        title=s.title,
        cwd=s.cwd,
        last_active_at=s.last or ref.modified_at,
        turn=s.turns.evidence(),
        last_tool=s.last_tool,
    )


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    s = cached_summary(ctx.cache, reading.ref.path, _Summary)
    return ModelInfo(id=s.model) if s and s.model else None


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    s = cached_summary(ctx.cache, reading.ref.path, _Summary)
    if s is None:
        return None
    return Usage(
        output_tokens_window=tokens_in_window(s.tokens, ctx.now),
        output_tokens_total=sum(n for _, n in s.tokens),
    )
