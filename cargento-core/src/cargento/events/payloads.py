"""What a harness's hook payload means: one :class:`LifecycleEvent` per accepted POST.

Every lane speaks its harness's own words (``UserPromptSubmit``, ``BeforeAgent``, a status
line's ``agent_state``, ``permission.asked``). Each harness plugin declares its words in an
:class:`~cargento.events.vocabulary.EventLane`; this module maps a body to one
:data:`EventKind` through that table and lifts out only the few fields the hub reads, then
hands the event to the plugin's optional ``refine_event`` hook for the rules a table cannot
say. Unknown fields are ignored; a body that names no session where one is needed is refused
with :class:`PayloadError` rather than guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import attrs

from cargento.events.notifications import Disposition, classify
from cargento.forwarders.slim import TERMINAL_FIELD
from cargento.labels import clip
from cargento.sharedmethods import shared_methods

if TYPE_CHECKING:
    from cargento.events.vocabulary import EventVocabulary

__all__ = [
    "TERMINAL_FIELD",
    "EventKind",
    "LifecycleEvent",
    "PayloadError",
    "Terminal",
    "parse_event",
    "parse_notification",
    "parse_terminal",
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

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,127}$")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,63}$")
_BUCKET = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
#: Longest command text kept for the irreversible-shape matcher.
COMMAND_LIMIT = 8192

#: Kinds that need no session id (the rebuild nudge, a status push before a conversation).
_SESSIONLESS: frozenset[EventKind] = frozenset({"store_moved", "status", "ignored"})
_AGENT_STATES = frozenset({"working", "idle", "authenticating", "tool_use"})


class PayloadError(ValueError):
    """A body the lane refuses: *status* is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


_TMUX = re.compile(r"^(/[^,\x00-\x1f]{1,1024}),(\d{1,10}),(\d{1,10})$")
_PANE = re.compile(r"^%\d{1,10}$")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Terminal:
    """The tmux pane a hook ran in: ``TMUX`` (``<socket>,<server pid>,<session>``) and
    ``TMUX_PANE`` (``%<n>``) of the hook's environment, which the harness inherited from
    the pane it was started in."""

    socket: str
    server_pid: int
    pane: str


def parse_terminal(value: object) -> Terminal | None:
    """A body's ``cargento_terminal`` (``{"tmux": ..., "pane": ...}``), or ``None`` when absent
    or not the shape tmux writes (never guessed at)."""
    if not isinstance(value, Mapping):
        return None
    tmux, pane = value.get("tmux"), value.get("pane")
    if not isinstance(tmux, str) or not isinstance(pane, str):
        return None
    found = _TMUX.match(tmux)
    if found is None or _PANE.match(pane) is None:
        return None
    return Terminal(socket=found.group(1), server_pid=int(found.group(2)), pane=pane)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
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
    #: ``status``: the agent state a status line reported.
    agent_state: str | None = None
    #: ``session_started`` source / ``session_ended`` reason.
    reason: str | None = None
    #: ``status``: the quota block alone, when the push carried one.
    quota: Mapping[str, Any] | None = None
    #: The tmux pane the hook ran in, when its forwarder reported one.
    terminal: Terminal | None = None


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
    if tool not in ("Bash", "bash", "shell", "exec_command", "run_shell_command") or not isinstance(
        tool_input, Mapping
    ):
        return None
    value = tool_input.get("command")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if isinstance(value, str) and value.strip():
        return value[:COMMAND_LIMIT]
    return None


def _permission_wording(tool: str | None, tool_input: object) -> tuple[str, str | None]:
    """Gate kind and text for a PermissionRequest: the question itself or a plan's first
    line where the tool carries one, else the tool's name; never a command's text."""
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
            first = next(
                (line.strip("# ").strip() for line in (plan or "").splitlines() if line.strip("# ").strip()), None
            )
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


def _vocabulary(given: EventVocabulary | None) -> EventVocabulary:
    if given is not None:
        return given
    from cargento.events.vocabulary import default_vocabulary

    return default_vocabulary()


def parse_event(
    harness: str,
    body: Mapping[str, Any],
    *,
    received_at: datetime,
    hook_at: datetime | None = None,
    vocabulary: EventVocabulary | None = None,
) -> LifecycleEvent:
    """Read one ``POST /api/events/<harness>`` body. Raises :class:`PayloadError`.

    *vocabulary* holds the lanes the plugins declared (the installed plugins' when omitted).
    """
    vocab = _vocabulary(vocabulary)
    lane = vocab.lanes.get(harness)
    if lane is None:
        raise PayloadError(404, f"no event lane for harness {harness!r}")
    name = _event_name(body)
    if name is None:
        name = lane.name_of_unnamed(body)
    if name is None:
        raise PayloadError(422, "hook_event_name is required (a name of letters, digits and . _ -)")
    kind: EventKind = lane.events.get(name, "ignored")
    if kind == "status":
        return vocab.refine(_status(harness, name, body, received_at=received_at, hook_at=hook_at), body)
    sid = _session(body, kind)
    if kind == "notification":
        return parse_notification(harness, body, received_at=received_at, hook_at=hook_at, vocabulary=vocab)
    tool = _text(body.get("tool_name"), 128)
    tool_input = body.get("tool_input")
    turn_key = _ident(body.get("prompt_id")) or _ident(body.get("turn_id"))
    agent_id = _ident(body.get("agent_id"))
    fields: dict[str, Any] = {}
    if kind == "permission":
        gate_kind, gate_text = _permission_wording(tool, tool_input)
        fields.update(gate_kind=gate_kind, gate_text=gate_text)
    elif kind == "tool_finished":
        fields["command"] = _command(tool, tool_input)
    elif kind in ("wait_opened", "wait_closed"):
        request = _ident(body.get("request_id"))
        if request is None:
            raise PayloadError(422, "request_id is required for a wait event")
        fields["request_id"] = request
        if kind == "wait_opened":
            fields.update(gate_kind="permission", gate_text=None)
    reason = _text(body.get("reason"), 64) if kind == "session_ended" else _text(body.get("source"), 64)
    event = LifecycleEvent(
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
        terminal=parse_terminal(body.get(TERMINAL_FIELD)),
        **fields,
    )
    return vocab.refine(event, body)


def parse_notification(
    harness: str,
    body: Mapping[str, Any],
    *,
    received_at: datetime,
    hook_at: datetime | None = None,
    vocabulary: EventVocabulary | None = None,
) -> LifecycleEvent:
    """Read a Notification payload (``POST /api/notify``, or a Notification hook on a lane).

    The generic reading names the gate's kind (a question for an elicitation, else a
    permission) and carries no text; a plugin's ``refine_event`` may add what its harness's
    notification says.
    """
    vocab = _vocabulary(vocabulary)
    name = _event_name(body) or "Notification"
    if name == "SessionEnd":
        return parse_event(
            harness,
            {**body, "hook_event_name": "SessionEnd"},
            received_at=received_at,
            hook_at=hook_at,
            vocabulary=vocab,
        )
    sid = _session(body, "notification")
    ntype = _text(body.get("notification_type"), 64)
    message = _text(body.get("message"), 400)
    disposition = classify(ntype, message)
    gate_kind = "question" if ntype in ("elicitation_dialog", "agent_needs_input") else "permission"
    event = LifecycleEvent(
        harness=harness,
        name="Notification",
        kind="notification",
        session_id=sid,
        received_at=received_at,
        hook_at=hook_at,
        turn_key=_ident(body.get("prompt_id")) or _ident(body.get("turn_id")),
        agent_id=_ident(body.get("agent_id")),
        gate_kind=gate_kind,
        gate_text=None,
        disposition=disposition,
        reason=ntype,
        terminal=parse_terminal(body.get(TERMINAL_FIELD)),
    )
    return vocab.refine(event, body)


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


def _status(
    harness: str, name: str, body: Mapping[str, Any], *, received_at: datetime, hook_at: datetime | None
) -> LifecycleEvent:
    state = _text(body.get("agent_state"), 32)
    if state is not None and state not in _AGENT_STATES:
        state = None
    sid = _ident(body.get("conversation_id")) or _ident(body.get("session_id"))
    return LifecycleEvent(
        harness=harness,
        name=name,
        kind="status",
        session_id=sid,
        received_at=received_at,
        hook_at=hook_at,
        agent_state=state,
        quota=_quota(body.get("quota")),
    )


def __getattr__(name: str) -> Any:
    if name == "EVENT_HARNESSES":
        # Deprecated (0.1): the lanes are the plugins' own now.
        import warnings

        from cargento.events.vocabulary import default_vocabulary

        warnings.warn(
            "cargento.events.payloads.EVENT_HARNESSES is deprecated: use "
            "EventVocabulary.from_registry(registry).adapters() (the lanes the plugins declare)",
            DeprecationWarning,
            stacklevel=2,
        )
        return default_vocabulary().adapters()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
