"""What a harness's hook payload means: one :class:`LifecycleEvent` per accepted POST.

Every lane speaks its harness's own words (Claude's ``UserPromptSubmit``, Gemini's
``BeforeAgent``, Antigravity's status-line ``agent_state``, the OpenCode plugin's
``permission.asked``); this module maps each to one :data:`EventKind` and lifts out only
the few fields the hub reads. Unknown fields are ignored; a body that names no session
where one is needed is refused with :class:`PayloadError` rather than guessed at.

Field shapes come from the recorded payloads (``testdata/captures``): Claude Code 2.1.222 to
2.1.332, Codex 0.146 and 0.171, Gemini CLI 0.53 and 0.61, Antigravity's status line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

import attrs

from cargento.events.notifications import Disposition, classify
from cargento.labels import clip

__all__ = [
    "EVENT_HARNESSES",
    "EventKind",
    "LifecycleEvent",
    "PayloadError",
    "parse_event",
    "parse_notification",
]

EventKind = Literal[
    "session_started",
    "session_ended",
    "turn_started",
    "turn_stopped",
    "permission",
    "tool_finished",
    "subagent_started",
    "subagent_stopped",
    "tasks_changed",
    "compacted",
    "notification",
    "store_moved",
    "status",
    "wait_opened",
    "wait_closed",
    "ignored",
]

#: The harnesses with an event lane, and the adapter that feeds each.
EVENT_HARNESSES: Mapping[str, str] = {
    "claude": "Claude Code hooks (plugin hooks.json, or event_hook.py in settings)",
    "codex": "Codex hooks (codex-hooks.json)",
    "gemini": "Gemini CLI hooks (event_hook.py in settings)",
    "antigravity": "Antigravity plugin hooks and status line (statusline_hook.py)",
    "opencode": "OpenCode passive plugin (opencode_plugin.js)",
    "pi": "Pi extension (pi_extension.js)",
}

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$")
_BUCKET = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
#: Longest command text kept for the irreversible-shape matcher.
COMMAND_LIMIT = 8192

_CLAUDE: Mapping[str, EventKind] = {
    "SessionStart": "session_started",
    "SessionEnd": "session_ended",
    "UserPromptSubmit": "turn_started",
    "Stop": "turn_stopped",
    "StopFailure": "turn_stopped",
    "PermissionRequest": "permission",
    "PostToolUse": "tool_finished",
    "PostToolUseFailure": "tool_finished",
    "SubagentStart": "subagent_started",
    "SubagentStop": "subagent_stopped",
    "TaskCreated": "tasks_changed",
    "TaskCompleted": "tasks_changed",
    "PostCompact": "compacted",
    "Notification": "notification",
}
_CODEX: Mapping[str, EventKind] = {
    "SessionStart": "session_started",
    "SessionEnd": "session_ended",
    "UserPromptSubmit": "turn_started",
    "Stop": "turn_stopped",
    # Codex 0.171 sends Interrupt instead of Stop for an interrupted turn.
    "Interrupt": "turn_stopped",
    "PermissionRequest": "permission",
    "PostToolUse": "tool_finished",
    "SubagentStart": "subagent_started",
    "SubagentStop": "subagent_stopped",
    "PostCompact": "compacted",
}
_GEMINI: Mapping[str, EventKind] = {
    "SessionStart": "session_started",
    "SessionEnd": "session_ended",
    "BeforeAgent": "turn_started",
    "AfterAgent": "turn_stopped",
    "AfterTool": "tool_finished",
    "Notification": "notification",
}
_ANTIGRAVITY: Mapping[str, EventKind] = {
    # The plugin hooks say only that the store probably moved: never a turn boundary.
    "PostToolUse": "store_moved",
    "PostInvocation": "store_moved",
    "StatusLine": "status",
}
_OPENCODE: Mapping[str, EventKind] = {
    "permission.asked": "wait_opened",
    "permission.replied": "wait_closed",
}
_PI: Mapping[str, EventKind] = {
    "ui.prompt.opened": "wait_opened",
    "ui.prompt.closed": "wait_closed",
}
_TABLES: Mapping[str, Mapping[str, EventKind]] = {
    "claude": _CLAUDE,
    "codex": _CODEX,
    "gemini": _GEMINI,
    "antigravity": _ANTIGRAVITY,
    "opencode": _OPENCODE,
    "pi": _PI,
}
#: Kinds that need no session id (the rebuild nudge, a status push before a conversation).
_SESSIONLESS: frozenset[EventKind] = frozenset({"store_moved", "status", "ignored"})
_AGENT_STATES = frozenset({"working", "idle", "authenticating", "tool_use"})


class PayloadError(ValueError):
    """A body the lane refuses: *status* is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@attrs.frozen(kw_only=True)
class LifecycleEvent:
    """One accepted hook invocation, reduced to what the hub reads."""

    harness: str
    #: The harness's own event name as received (``UserPromptSubmit``, ``permission.asked``).
    name: str
    kind: EventKind
    #: The session the event is about; ``None`` only for the session-less kinds.
    session_id: str | None
    received_at: datetime
    #: When the hook process started, as the forwarder reported it.
    hook_at: datetime | None = None
    #: Claude ``prompt_id`` / Codex ``turn_id``: groups the events of one prompt or turn.
    turn_key: str | None = None
    #: Set when a subagent's own event arrives on its parent's session id.
    agent_id: str | None = None
    agent_type: str | None = None
    tool: str | None = None
    #: A short fingerprint of the tool input, to pair a permission with its tool run.
    tool_match: str | None = None
    #: The shell command of a finished tool run (bounded), for the irreversible matcher.
    command: str | None = None
    #: Gate wording for ``permission``/``notification``/``wait_opened``.
    gate_kind: str | None = None
    gate_text: str | None = None
    disposition: Disposition | None = None
    #: ``wait_opened``/``wait_closed``: the plugin's request id.
    request_id: str | None = None
    #: ``status``: the Antigravity agent state.
    agent_state: str | None = None
    #: ``session_started`` source / ``session_ended`` reason.
    reason: str | None = None
    #: ``status``: the quota block alone, when the push carried one.
    quota: Mapping[str, Any] | None = None


def _text(value: object, limit: int = 256) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()[:limit]
    return None


def _ident(value: object) -> str | None:
    """An id as given (never clipped: a cut id would name another session)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if _ID.match(text) else None


def _session(body: Mapping[str, Any], kind: EventKind) -> str | None:
    raw = body.get("session_id")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if kind in _SESSIONLESS:
            return None
        raise PayloadError(422, "session_id is required for this event")
    sid = _ident(raw)
    if sid is None:
        raise PayloadError(422, "session_id must be an id of letters, digits and . _ : - (at most 128)")
    return sid


def _fingerprint(tool_input: object) -> str | None:
    if not isinstance(tool_input, Mapping):
        return None
    for key in ("command", "file_path", "path", "url", "pattern"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return f"{key}:{value[:512]}"
    return None


def _command(tool: str | None, tool_input: object) -> str | None:
    if tool not in ("Bash", "bash", "shell", "exec_command", "run_shell_command") or not isinstance(tool_input, Mapping):
        return None
    value = tool_input.get("command")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if isinstance(value, str) and value.strip():
        return value[:COMMAND_LIMIT]
    return None


def _permission_wording(harness: str, tool: str | None, tool_input: object) -> tuple[str, str | None]:
    """Gate kind and text for a PermissionRequest: the question itself or a plan's first
    line where the tool carries one, else the tool's name; never a command's text."""
    if harness == "codex":
        # A Codex row says a gate is open and cannot say which (the specification).
        return "permission", None
    if isinstance(tool_input, Mapping):
        if tool == "AskUserQuestion":
            questions = tool_input.get("questions")
            if isinstance(questions, list) and questions and isinstance(questions[0], Mapping):
                question = _text(questions[0].get("question"), 400)
                if question:
                    return "question", clip(question, 160)
            return "question", None
        if tool == "ExitPlanMode":
            plan = _text(tool_input.get("plan"), 2000)
            first = next((line.strip("# ").strip() for line in (plan or "").splitlines() if line.strip("# ").strip()), None)
            return "plan", clip(first, 160) if first else None
    if tool:
        return "permission", clip(f"asking to use {tool}", 120)
    return "permission", None


def _event_name(body: Mapping[str, Any]) -> str | None:
    for key in ("hook_event_name", "event"):
        value = body.get(key)
        if isinstance(value, str) and _NAME.match(value.strip()):
            return value.strip()
    return None


def parse_event(
    harness: str,
    body: Mapping[str, Any],
    *,
    received_at: datetime,
    hook_at: datetime | None = None,
) -> LifecycleEvent:
    """Read one ``POST /api/events/<harness>`` body. Raises :class:`PayloadError`."""
    table = _TABLES.get(harness)
    if table is None:
        raise PayloadError(404, f"no event lane for harness {harness!r}")
    name = _event_name(body)
    if harness == "antigravity" and name is None:
        # A status-line push carries its state; a plugin hook only says the store moved.
        name = "StatusLine" if ("agent_state" in body or "quota" in body) else "PostToolUse"
    if name is None:
        raise PayloadError(422, "hook_event_name is required (a name of letters, digits and . _ -)")
    kind: EventKind = table.get(name, "ignored")
    if kind == "status":
        return _status(body, received_at=received_at, hook_at=hook_at)
    sid = _session(body, kind)
    if kind == "notification":
        return parse_notification(harness, body, received_at=received_at, hook_at=hook_at)
    tool = _text(body.get("tool_name"), 128)
    tool_input = body.get("tool_input")
    turn_key = _ident(body.get("prompt_id")) or _ident(body.get("turn_id"))
    agent_id = _ident(body.get("agent_id"))
    fields: dict[str, Any] = {}
    if kind == "permission":
        gate_kind, gate_text = _permission_wording(harness, tool, tool_input)
        fields.update(gate_kind=gate_kind, gate_text=gate_text)
    elif kind == "tool_finished":
        fields["command"] = _command(tool, tool_input)
    elif kind in ("wait_opened", "wait_closed"):
        request = _ident(body.get("request_id"))
        if request is None:
            raise PayloadError(422, "request_id is required for a wait event")
        fields["request_id"] = request
        if kind == "wait_opened":
            if harness == "pi":
                prompt = _text(body.get("prompt_kind"), 32)
                fields.update(gate_kind="prompt", gate_text=f"an extension {prompt} prompt is open" if prompt else "an extension prompt is open")
            else:
                fields.update(gate_kind="permission", gate_text=None)
    reason = _text(body.get("reason"), 64) if kind == "session_ended" else _text(body.get("source"), 64)
    return LifecycleEvent(
        harness=harness,
        name=name,
        kind=kind,
        session_id=sid,
        received_at=received_at,
        hook_at=hook_at,
        turn_key=turn_key,
        agent_id=agent_id,
        agent_type=_text(body.get("agent_type"), 64),
        tool=tool,
        tool_match=_fingerprint(tool_input),
        reason=reason,
        **fields,
    )


def parse_notification(
    harness: str,
    body: Mapping[str, Any],
    *,
    received_at: datetime,
    hook_at: datetime | None = None,
) -> LifecycleEvent:
    """Read a Notification payload (``POST /api/notify``, or a Notification hook on a lane)."""
    name = _event_name(body) or "Notification"
    if name == "SessionEnd":
        return parse_event(harness, {**body, "hook_event_name": "SessionEnd"}, received_at=received_at, hook_at=hook_at)
    sid = _session(body, "notification")
    ntype = _text(body.get("notification_type"), 64)
    message = _text(body.get("message"), 400)
    disposition = classify(ntype, message)
    gate_kind = "permission"
    if ntype in ("elicitation_dialog", "agent_needs_input"):
        gate_kind = "question"
    elif harness == "gemini":
        details = body.get("details")
        if isinstance(details, Mapping) and details.get("type") == "exec":
            gate_kind = "command"
    text = None
    if harness == "claude" and message:
        text = clip(message, 120)
    return LifecycleEvent(
        harness=harness,
        name="Notification",
        kind="notification",
        session_id=sid,
        received_at=received_at,
        hook_at=hook_at,
        turn_key=_ident(body.get("prompt_id")) or _ident(body.get("turn_id")),
        agent_id=_ident(body.get("agent_id")),
        gate_kind=gate_kind,
        gate_text=text,
        disposition=disposition,
        reason=ntype,
    )


def _quota(value: object) -> Mapping[str, Any] | None:
    """The status line's quota block, buckets of ``{remaining_fraction, reset_time}`` only."""
    if not isinstance(value, Mapping):
        return None
    out: dict[str, Any] = {}
    for key, bucket in list(value.items())[:16]:
        if not isinstance(key, str) or not _BUCKET.match(key) or not isinstance(bucket, Mapping):
            continue
        fraction = bucket.get("remaining_fraction")
        reset = bucket.get("reset_time")
        entry: dict[str, Any] = {}
        if isinstance(fraction, int | float) and not isinstance(fraction, bool) and 0.0 <= float(fraction) <= 1.0:
            entry["remaining_fraction"] = float(fraction)
        if isinstance(reset, str) and len(reset) <= 64:
            entry["reset_time"] = reset
        if entry:
            out[key] = entry
    return out or None


def _status(body: Mapping[str, Any], *, received_at: datetime, hook_at: datetime | None) -> LifecycleEvent:
    state = _text(body.get("agent_state"), 32)
    if state is not None and state not in _AGENT_STATES:
        state = None
    sid = _ident(body.get("conversation_id")) or _ident(body.get("session_id"))
    return LifecycleEvent(
        harness="antigravity",
        name="StatusLine",
        kind="status",
        session_id=sid,
        received_at=received_at,
        hook_at=hook_at,
        agent_state=state,
        quota=_quota(body.get("quota")),
    )
