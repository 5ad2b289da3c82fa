"""Goose ``messages`` rows: which are prompts someone typed, which are tool calls, and the turn.

``content_json`` is a JSON array of typed parts (``text``, ``toolRequest``, ``toolResponse``,
``thinking``...). Tool results are written with role ``user``, so a user message is a prompt only
when it carries text and no ``toolResponse`` part, and is visible to the user (``metadata_json``
``userVisible`` not false). Content arrives as a bounded head, so a cut-off JSON document is
read with patterns rather than dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

import attrs
import orjson
from cargento import Instruction, TurnEvidence
from cargento.drift import DriftKind
from cargento.labels import clip
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts
from cargento.turns import TurnClock

__all__ = ["KNOWN_CONTENT", "KNOWN_ROLES", "Message", "Summary", "parse_message", "summarise", "tool_label"]

#: Message roles Goose writes (``rmcp::model::Role``); any other is counted as schema drift.
KNOWN_ROLES = frozenset({"user", "assistant"})
#: Content part types Goose writes (the ``MessageContent`` enum of block/goose's
#: ``crates/goose/src/conversation/message.rs``, and the older compaction markers); any other is
#: counted as schema drift.
KNOWN_CONTENT = frozenset(
    {
        "text",
        "image",
        "toolRequest",
        "toolResponse",
        "toolConfirmationRequest",
        "actionRequired",
        "frontendToolRequest",
        "toolInputDelta",
        "thinking",
        "redactedThinking",
        "systemNotification",
        "reasoning",
        "contextLengthExceeded",
        "summarizationRequested",
        "conversationCompacted",
    }
)

_TOOL_RESPONSE = re.compile(rb'"type"\s*:\s*"toolResponse"')
_TOOL_REQUEST = re.compile(rb'"type"\s*:\s*"(?:toolRequest|frontendToolRequest)"')
_NAME = re.compile(rb'"name"\s*:\s*"((?:[^"\\]|\\.){1,200})"')
_TEXT = re.compile(rb'"type"\s*:\s*"text"\s*,\s*"text"\s*:\s*"((?:[^"\\]|\\.)*)')
#: Prompts that only continue the previous request; the instruction then names the earlier one.
CONTINUATIONS = frozenset(
    {"proceed", "continue", "go on", "go ahead", "yes", "y", "ok", "okay", "keep going", "do it", "sounds good"}
)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Message:
    """One message, reduced to what the board uses."""

    role: str
    at: datetime | None
    #: The typed prompt, when this is a human prompt.
    prompt: str | None = None
    #: Tool names requested by an assistant message, in order.
    tools: tuple[str, ...] = ()
    tool_response: bool = False
    #: What this build does not know in the message (schema drift): ``(kind, name)`` pairs for
    #: its role and its content part types, read only where the content parsed in full.
    unknown: tuple[tuple[DriftKind, str], ...] = ()


def _as_bytes(value: object) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "replace")
    return b""


def _decode_json_string(raw: bytes) -> str | None:
    try:
        value = orjson.loads(b'"' + raw + b'"')
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def _parts(content: bytes) -> list[dict[str, Any]] | None:
    try:
        value = orjson.loads(content)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    return [p for p in value if isinstance(p, dict)]


def _tool_name(part: dict[str, Any]) -> str | None:
    call = part.get("toolCall")
    if isinstance(call, dict):
        value = call.get("value") if isinstance(call.get("value"), dict) else call
        name = value.get("name") if isinstance(value, dict) else None
        if isinstance(name, str) and name.strip():
            return name.strip()
    name = part.get("toolName") or part.get("name")
    return name.strip() if isinstance(name, str) and name.strip() else None


def _visible(metadata: bytes) -> bool:
    if not metadata:
        return True
    try:
        value = orjson.loads(metadata)
    except orjson.JSONDecodeError:
        return True
    return not (isinstance(value, dict) and value.get("userVisible") is False)


def parse_message(raw: dict[str, Any]) -> Message | None:
    """A :class:`Message` from one ``messages`` row, or ``None`` for an unusable row."""
    role = raw.get("role")
    if not isinstance(role, str):
        return None
    role = role.strip().lower()
    at = parse_ts(raw.get("created_timestamp"))
    content = _as_bytes(raw.get("content_json"))
    parts = _parts(content)
    unknown = _unknown(role, parts)
    if unknown:
        return attrs.evolve(_parse(role, at, content, parts, raw), unknown=unknown)
    return _parse(role, at, content, parts, raw)


def _unknown(role: str, parts: list[dict[str, Any]] | None) -> tuple[tuple[DriftKind, str], ...]:
    found: list[tuple[DriftKind, str]] = []
    if role not in KNOWN_ROLES:
        found.append(("record type", f"message role {role[:40]}"))
    for part in parts or ():
        kind = part.get("type")
        if isinstance(kind, str) and kind not in KNOWN_CONTENT:
            found.append(("field", f"content type {kind[:40]}"))
    return tuple(found)


def _parse(
    role: str, at: datetime | None, content: bytes, parts: list[dict[str, Any]] | None, raw: dict[str, Any]
) -> Message:
    if role == "assistant":
        if parts is not None:
            tools = tuple(
                n for p in parts if p.get("type") in ("toolRequest", "frontendToolRequest") if (n := _tool_name(p))
            )
        elif _TOOL_REQUEST.search(content):
            tools = tuple(n for m in _NAME.finditer(content) if (n := _decode_json_string(m.group(1))))[-1:]
        else:
            tools = ()
        return Message(role=role, at=at, tools=tools)
    if role != "user":
        return Message(role=role, at=at)
    if (parts is not None and any(p.get("type") == "toolResponse" for p in parts)) or (
        parts is None and _TOOL_RESPONSE.search(content)
    ):
        return Message(role=role, at=at, tool_response=True)
    text: str | None
    if parts is not None:
        text = "\n".join(p["text"] for p in parts if p.get("type") == "text" and isinstance(p.get("text"), str))
    else:
        found = _TEXT.search(content)
        text = _decode_json_string(found.group(1)) if found else None
    prompt = text.strip() if text and text.strip() and _visible(_as_bytes(raw.get("metadata_json"))) else None
    return Message(role=role, at=at, prompt=prompt)


def tool_label(name: str) -> str:
    """An extension tool as ``developer · shell`` rather than its wire name ``developer__shell``."""
    service, sep, tool = name.partition("__")
    if sep and service and tool:
        return f"{service} · {tool.replace('_', ' ')}"
    return name


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Summary:
    """What one session's newest messages say."""

    turn: TurnEvidence = attrs.field(factory=TurnEvidence)
    instruction: Instruction | None = None
    last_tool: str | None = None
    #: The tool's wire name when ``last_tool`` renames it (``developer__shell``).
    last_tool_raw: str | None = None
    thinking: bool = False
    newest_at: datetime | None = None
    prompts: int = 0


def _instruction(prompts: list[tuple[str, datetime | None]]) -> Instruction | None:
    if not prompts:
        return None
    text, at = prompts[-1]
    if text.lower().strip(" .!") in CONTINUATIONS:
        for earlier, earlier_at in reversed(prompts[:-1]):
            if earlier.lower().strip(" .!") not in CONTINUATIONS:
                return Instruction(text=clip(earlier, 200), source="earlier prompt", at=earlier_at)
    return Instruction(text=clip(text, 200), source="prompt", at=at)


def summarise(messages: Iterable[Message]) -> Summary:
    """Fold messages (oldest first) into the turn, the instruction and the working detail.

    A prompt starts a turn; an assistant message that requests no tool is Goose's final reply
    and closes it. Goose has no turn-end event, so the evidence is published with its state
    ``unknown`` (the row stays on recency) while the closed turns still give the ETA sample.
    """
    clock = TurnClock()
    prompts: list[tuple[str, datetime | None]] = []
    last_tool: str | None = None
    last_tool_raw: str | None = None
    last: Message | None = None
    newest: datetime | None = None
    for message in messages:
        if message.at is not None and (newest is None or message.at > newest):
            newest = message.at
        if message.prompt is not None:
            clock.start(message.at)
            prompts.append((message.prompt, message.at))
            last_tool = last_tool_raw = None
        elif message.role == "assistant":
            if message.tools:
                clock.activity(message.at)
                last_tool = tool_label(message.tools[-1])
                last_tool_raw = message.tools[-1] if last_tool != message.tools[-1] else None
            else:
                clock.end(message.at)
        else:
            clock.activity(message.at)
        last = message
    thinking = last is not None and (last.prompt is not None or last.tool_response)
    return Summary(
        turn=clock.evidence(boundaries_recorded=False),
        instruction=_instruction(prompts),
        last_tool=last_tool,
        last_tool_raw=last_tool_raw,
        thinking=thinking,
        newest_at=newest,
        prompts=len(prompts),
    )
