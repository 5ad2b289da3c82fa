"""Folding Copilot CLI's typed ``events.jsonl`` records into one running session summary.

Every record is ``{type, id, timestamp, parentId, data{...}}``; events written by a subagent
carry a top-level ``agentId``. Field names inside ``data`` are de-facto, so every one is read
defensively: a record of the wrong shape is skipped, never raised on.

The summary is fed records in file order, a few at a time (the caller follows the file with a
:class:`~cargento.readers.JsonlFollower`), and is kept in the plugin cache between builds.
"""

from __future__ import annotations

import copy
from collections import deque
from datetime import datetime
from typing import Any

import attrs
from cargento.drift import DriftCounter
from cargento.labels import clip, one_line
from cargento.models import Instruction, Subagent, TurnEvidence
from cargento.rates import TokenTimeline
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr
from cargento.timestamps import newest_plausible, parse_ts
from cargento.turns import TurnClock

__all__ = ["Permission", "SessionSummary", "SubagentState", "gate_kind"]

#: How many recent prompts are kept (for the continuation rule of the instruction line).
_PROMPTS_KEPT = 8
#: Prompts that only continue earlier work; the instruction line then names the earlier one.
_CONTINUATIONS = frozenset(
    {"proceed", "continue", "go on", "go ahead", "yes", "y", "ok", "okay", "sure", "do it", "keep going", "next", "k"}
)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value >= 0 and value == value and value != float("inf"):
        return int(value)
    return None


def gate_kind(request: object) -> str:
    """The kind a permission request is published as: ``command``, ``url`` or ``permission``.

    Only the kind is read; the command, the URL and the stated reason never leave the store.
    """
    kind = _str(_dict(request).get("kind"))
    if kind in ("shell", "command", "commands", "bash"):
        return "command"
    if kind in ("url", "fetch", "web_fetch"):
        return "url"
    return "permission"


@shared_methods
@attrs.define(repr=False, eq=False)
class SubagentState:
    """One subagent, keyed on the ``agentId`` its three lifecycle events share."""

    agent_id: str
    name: str
    role: str | None = None
    model: str | None = None
    started_at: datetime | None = None
    last_active_at: datetime | None = None
    finished: bool = False

    def pill(self, *, running: bool) -> Subagent:
        return Subagent(
            name=self.name,
            running=running,
            model=self.model,
            role=self.role,
            session_id=self.agent_id,
            started_at=self.started_at,
            last_active_at=self.last_active_at,
        )


@shared_methods
@attrs.define(repr=False, eq=False)
class Permission:
    """A standing ``permission.requested`` with no ``permission.completed`` yet."""

    request_id: str
    at: datetime
    kind: str


#: Event types the CLI writes that no reading uses: skipped on purpose, so not schema drift.
KNOWN_UNUSED = frozenset({"system.message", "subagent.configured", "session.idle", "assistant.reasoning"})


@shared_repr
@attrs.define(repr=False, eq=False)
class SessionSummary:
    """What the events so far say about one session."""

    session_id: str | None = None
    cwd: str | None = None
    started_at: datetime | None = None
    title_event: str | None = None
    model: str | None = None
    first_prompt: str | None = None
    prompts: deque[tuple[str, datetime | None]] = attrs.Factory(lambda: deque(maxlen=_PROMPTS_KEPT))
    last_tool: str | None = None
    #: The recorded tool name when ``last_tool`` renames it (an MCP tool shown ``server · tool``).
    last_tool_raw: str | None = None
    open_tools: dict[str, str] = attrs.Factory(dict)
    subagents: dict[str, SubagentState] = attrs.Factory(dict)
    permissions: dict[str, Permission] = attrs.Factory(dict)
    clock: TurnClock = attrs.Factory(TurnClock)
    turn_seen: bool = False
    pending_end: datetime | None = None
    ended: bool = False
    newest_at: datetime | None = None
    last_at: datetime | None = None
    tokens_total: int = 0
    tokens_seen: bool = False
    usage_records: bool = False
    #: The output tokens of each response, by timestamp (the last quarter hour of them).
    tokens: TokenTimeline = attrs.Factory(TokenTimeline)
    records: int = 0
    #: ``session.start``'s ``copilotVersion``: the CLI version that wrote the store.
    version: str | None = None
    #: Event types this build does not know, counted (schema drift).
    drift: DriftCounter = attrs.Factory(DriftCounter)

    # -- feeding ------------------------------------------------------------------------

    def feed(self, record: dict[str, Any]) -> None:
        """Fold one parsed record; anything unrecognised or malformed is ignored."""
        kind = record.get("type")
        if not isinstance(kind, str):
            return
        self.records += 1
        at = parse_ts(record.get("timestamp"))
        data = _dict(record.get("data"))
        agent = _str(record.get("agentId"))
        if at is not None:
            self.last_at = at
            if self.newest_at is None or at > self.newest_at:
                self.newest_at = at
        if agent is not None and not kind.startswith("subagent.") and not kind.startswith("permission."):
            self._agent_activity(agent, kind, data, at)
            return
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, data, at, agent)
        else:
            if kind not in KNOWN_UNUSED:
                self.drift.record_type(kind)
            self.clock.activity(at)

    def _agent_activity(self, agent: str, kind: str, data: dict[str, Any], at: datetime | None) -> None:
        state = self.subagents.get(agent)
        if state is not None and at is not None and (state.last_active_at is None or at > state.last_active_at):
            state.last_active_at = at
        if kind == "session.usage_record":
            self._usage(_dict(data.get("usage")), at, from_record=True)
        elif kind == "assistant.usage":
            self._usage(data, at, from_record=False)
        self.clock.activity(at)

    def _start(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.session_id = _str(data.get("sessionId")) or self.session_id
        context = _dict(data.get("context"))
        self.cwd = _str(context.get("cwd")) or _str(data.get("cwd")) or self.cwd
        self.started_at = parse_ts(data.get("startTime")) or at or self.started_at
        self.model = _str(data.get("selectedModel")) or self.model
        self.version = _str(data.get("copilotVersion")) or self.version

    def _resume(self, data: dict[str, Any], at: datetime | None, agent: str | None) -> None:
        self.ended = False
        context = _dict(data.get("context"))
        self.cwd = _str(context.get("cwd")) or _str(data.get("cwd")) or self.cwd

    def _prompt(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        text = _str(data.get("content"))
        if text is None:
            text = _str(data.get("text"))
        self._finish_pending()
        self.ended = False
        self.permissions.clear()
        self.open_tools.clear()
        if text is not None:
            if self.first_prompt is None:
                self.first_prompt = text
            self.prompts.append((text, at))
        self.clock.start(at)
        self.turn_seen = True

    def _turn_start(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.pending_end = None
        self.turn_seen = True
        if self.clock.state != "open":
            self.clock.start(at)
        else:
            self.clock.activity(at)

    def _turn_end(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.turn_seen = True
        self.clock.activity(at)
        self.pending_end = at or self.pending_end

    def _complete(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.turn_seen = True
        self.pending_end = None
        self.open_tools.clear()
        self.clock.end(at)

    def _shutdown(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self._complete(data, at, _agent)
        self.permissions.clear()
        self.ended = True

    def _model(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.model = _str(data.get("newModel")) or _str(data.get("model")) or self.model
        self.clock.activity(at)

    def _title(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.title_event = _str(data.get("title")) or self.title_event

    def _tool(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        name = _str(data.get("toolName")) or _str(data.get("name")) or _str(data.get("tool"))
        server = _str(data.get("mcpServerName"))
        if name is not None:
            self.last_tool = f"{server} · {_str(data.get('mcpToolName')) or name}" if server else name
            self.last_tool_raw = name if self.last_tool != name else None
            call = _str(data.get("toolCallId"))
            if call is not None:
                self.open_tools[call] = self.last_tool
        self.clock.activity(at)

    def _tool_done(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        call = _str(data.get("toolCallId"))
        if call is not None:
            self.open_tools.pop(call, None)
        self.clock.activity(at)

    def _usage_record(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        usage = _dict(data.get("usage"))
        self._usage(usage, at, from_record=True)
        self.clock.activity(at)
        self.model = _str(usage.get("model")) or self.model

    def _assistant_usage(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self._usage(data, at, from_record=False)
        self.clock.activity(at)

    def _message(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        self.model = _str(data.get("model")) or self.model
        self.clock.activity(at)

    def _usage(self, usage: dict[str, Any], at: datetime | None, *, from_record: bool) -> None:
        if from_record:
            self.usage_records = True
        elif self.usage_records:
            return  # the same response is also written as a usage record; count it once
        tokens = _int(usage.get("outputTokens"))
        if tokens is None:
            return
        self.tokens_seen = True
        self.tokens_total += tokens
        self.tokens.add(at, tokens)

    def _sub_started(self, data: dict[str, Any], at: datetime | None, agent: str | None) -> None:
        key = agent or _str(data.get("agentId"))
        if key is None:
            return
        name = (
            _str(data.get("agentDisplayName"))
            or _str(data.get("name"))
            or _str(data.get("agentName"))
            or _str(data.get("agent"))
            or _str(data.get("agentType"))
            or "subagent"
        )
        role = _str(data.get("agentName")) or _str(data.get("agentType"))
        self.subagents[key] = SubagentState(
            agent_id=key,
            name=name,
            role=role if role != name else None,
            model=_str(data.get("model")),
            started_at=at,
            last_active_at=at,
        )
        self.clock.activity(at)

    def _sub_finished(self, data: dict[str, Any], at: datetime | None, agent: str | None) -> None:
        key = agent or _str(data.get("agentId"))
        state = self.subagents.get(key) if key else None
        if state is not None:
            state.finished = True
            if at is not None:
                state.last_active_at = at
        self.clock.activity(at)

    def _permission(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        request = _str(data.get("requestId"))
        if request is None or at is None:
            return
        self.permissions[request] = Permission(request_id=request, at=at, kind=gate_kind(data.get("permissionRequest")))

    def _permission_done(self, data: dict[str, Any], at: datetime | None, _agent: str | None) -> None:
        request = _str(data.get("requestId"))
        if request is not None:
            self.permissions.pop(request, None)
        self.clock.activity(at)

    def _finish_pending(self) -> None:
        if self.pending_end is not None:
            self.clock.end(self.pending_end)
            self.pending_end = None

    # -- reading --------------------------------------------------------------------------

    def turn(self) -> TurnEvidence:
        """The turn evidence: a main-agent ``turn_end`` with no later ``turn_start`` ends it."""
        if self.pending_end is not None and self.clock.state == "open":
            clock = copy.deepcopy(self.clock)
            clock.end(self.pending_end)
            return clock.evidence()
        return self.clock.evidence(boundaries_recorded=self.turn_seen)

    def last_active(self, now: datetime) -> datetime | None:
        """Newest plausible activity of the session and its subagents."""
        return newest_plausible(now, self.newest_at, self.last_at)

    def thinking(self) -> bool:
        """The model holds an open turn with no tool call open."""
        return self.clock.state == "open" and self.pending_end is None and not self.open_tools and not self.ended

    def instruction(self) -> Instruction | None:
        """The newest operator prompt, or an earlier one when the newest only continues."""
        if not self.prompts:
            return None
        text, at = self.prompts[-1]
        if one_line(text).lower().strip(" .!") not in _CONTINUATIONS:
            return Instruction(text=clip(text, 200), source="prompt", at=at)
        for earlier, when in reversed(list(self.prompts)[:-1]):
            if one_line(earlier).lower().strip(" .!") not in _CONTINUATIONS:
                return Instruction(text=clip(earlier, 200), source="earlier prompt", at=when)
        return Instruction(text=clip(text, 200), source="prompt", at=at)

    def unfinished_subagents(self) -> bool:
        return any(not s.finished for s in self.subagents.values())


_HANDLERS = {
    "session.start": SessionSummary._start,
    "session.resume": SessionSummary._resume,
    "user.message": SessionSummary._prompt,
    "assistant.turn_start": SessionSummary._turn_start,
    "assistant.turn_end": SessionSummary._turn_end,
    "session.task_complete": SessionSummary._complete,
    "abort": SessionSummary._complete,
    "session.abort": SessionSummary._complete,
    "session.shutdown": SessionSummary._shutdown,
    "session.model_change": SessionSummary._model,
    "session.title_changed": SessionSummary._title,
    "tool.execution_start": SessionSummary._tool,
    "tool.execution_complete": SessionSummary._tool_done,
    "session.usage_record": SessionSummary._usage_record,
    "assistant.usage": SessionSummary._assistant_usage,
    "assistant.message": SessionSummary._message,
    "subagent.started": SessionSummary._sub_started,
    "subagent.completed": SessionSummary._sub_finished,
    "subagent.failed": SessionSummary._sub_finished,
    "permission.requested": SessionSummary._permission,
    "permission.completed": SessionSummary._permission_done,
}
