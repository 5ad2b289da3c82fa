"""Gemini CLI chat records reduced to the facts a reading needs.

A chat file (``tmp/<project>/chats/session-*.jsonl``) holds four kinds of line: the metadata
header (line 1: ``sessionId``, ``projectHash``, ``startTime``, ``kind``, sometimes
``directories``), messages (a string ``id`` and ``type`` user/gemini/info/error/warning),
``{"$set": {...}}`` patches (``lastUpdated``, ``directories``, ``summary``, or a whole
``messages`` snapshot when a session is resumed) and ``{"$rewindTo": "<message id>"}``.

Every function here takes whatever JSON value a line held and never raises: a field of the
wrong type reads as absent.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import attrs
from cargento.labels import clip
from cargento.models import Task, TaskStatus
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = [
    "PROMPT_CHARS",
    "AgentCall",
    "Header",
    "MessageFacts",
    "header_of",
    "message_facts",
]

#: Prompt text is kept clipped to this many characters.
PROMPT_CHARS = 400
#: Gemini CLI's own context preamble, recorded as a user message at the start of a session.
_CONTEXT_MARK = "<session_context>"
_STATUSES: dict[str, TaskStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
    "cancelled": "completed",
}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Header:
    """Line 1 of a chat file."""

    session_id: str
    kind: str | None = None
    started_at: datetime | None = None
    directories: tuple[str, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class AgentCall:
    """An ``invoke_agent`` tool call: which subagent session ran under which agent name."""

    agent_id: str | None
    name: str | None
    #: The tool call's status (``success``, ``error``, ``cancelled``...) once recorded.
    status: str | None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class MessageFacts:
    """One message, as much of it as a reading uses (never its full content)."""

    id: str
    type: str
    at: datetime | None
    #: The newest moment the message records (its own timestamp or a tool call's).
    last_at: datetime | None
    #: Text a human typed: a user message that is neither a tool reply nor the CLI's preamble.
    prompt: str | None = None
    #: A user message carrying function responses (a tool reply, not a prompt).
    tool_reply: bool = False
    #: A gemini message with visible text.
    has_text: bool = False
    output_tokens: int | None = None
    model: str | None = None
    #: Display names of the message's tool calls, in order.
    tools: tuple[str, ...] = ()
    #: The newest ``write_todos`` call's list, when the message carries one.
    todos: tuple[Task, ...] | None = None
    #: The newest ``update_topic`` title, when the message carries one.
    topic: str | None = None
    agents: tuple[AgentCall, ...] = ()
    #: A subagent's ``complete_task`` call: the subagent handed its result back.
    completes: bool = False


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _word(value: object) -> str | None:
    """A name from a small vocabulary (a message type, model or tool), held once however many
    messages of a long chat name it: the chat keeps every message's facts."""
    found = _str(value)
    return None if found is None else sys.intern(found)


def header_of(record: dict[str, Any]) -> Header | None:
    """The header when *record* is a chat file's metadata line (it carries ``sessionId``)."""
    ident = _str(record.get("sessionId"))
    if ident is None or "type" in record:
        return None
    return Header(
        session_id=ident,
        kind=_str(record.get("kind")),
        started_at=parse_ts(record.get("startTime")),
        directories=directories_of(record.get("directories")),
    )


def directories_of(value: object) -> tuple[str, ...]:
    """The workspace directories of a ``directories`` field (strings only)."""
    if not isinstance(value, list):
        return ()
    return tuple(d for d in value if isinstance(d, str) and d.strip())


def _parts(content: object) -> Iterator[dict[str, Any]]:
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                yield part
    elif isinstance(content, dict):
        yield content


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in _parts(content) if isinstance(p.get("text"), str))


def _tokens(value: object) -> int | None:
    if not isinstance(value, dict):
        return None
    out = value.get("output")
    if isinstance(out, bool) or not isinstance(out, int | float) or out < 0:
        return None
    return int(out)


def _todos(args: object) -> tuple[Task, ...] | None:
    if not isinstance(args, dict) or not isinstance(args.get("todos"), list):
        return None
    tasks = []
    for index, item in enumerate(args["todos"]):
        if not isinstance(item, dict):
            continue
        subject = _str(item.get("description"))
        if subject is None:
            continue
        raw = item.get("status")
        status: TaskStatus = _STATUSES.get(raw, "pending") if isinstance(raw, str) else "pending"
        tasks.append(Task(subject=clip(subject, 200), status=status, id=str(index + 1)))
    return tuple(tasks)


def message_facts(record: dict[str, Any]) -> MessageFacts | None:
    """The facts of a message line (a string ``id`` and a string ``type``), else ``None``."""
    ident = _str(record.get("id"))
    kind = _word(record.get("type"))
    if ident is None or kind is None:
        return None
    at = parse_ts(record.get("timestamp"))
    last = at
    content = record.get("content")
    if kind == "user":
        reply = any("functionResponse" in p for p in _parts(content))
        typed = record.get("displayContent")
        text = _text(typed) if typed is not None else _text(content)
        prompt = None
        if not reply and text.strip() and not text.lstrip().startswith(_CONTEXT_MARK):
            prompt = clip(text, PROMPT_CHARS) or None
        return MessageFacts(id=ident, type=kind, at=at, last_at=at, prompt=prompt, tool_reply=reply)
    tools: list[str] = []
    todos: tuple[Task, ...] | None = None
    topic: str | None = None
    agents: list[AgentCall] = []
    completes = False
    calls = record.get("toolCalls")
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        name = _str(call.get("name"))
        if name is None:
            continue
        tools.append(_word(call.get("displayName")) or sys.intern(name))
        stamp = parse_ts(call.get("timestamp"))
        if stamp is not None and (last is None or stamp > last):
            last = stamp
        args = call.get("args")
        if name == "write_todos":
            listed = _todos(args)
            todos = listed if listed is not None else todos
        elif name == "update_topic" and isinstance(args, dict):
            topic = _str(args.get("title")) or topic
        elif name == "invoke_agent":
            agent_name = _str(args.get("agent_name")) if isinstance(args, dict) else None
            display = call.get("resultDisplay")
            if agent_name is None and isinstance(display, dict):
                agent_name = _str(display.get("agentName"))
            agents.append(
                AgentCall(agent_id=_str(call.get("agentId")), name=agent_name, status=_str(call.get("status")))
            )
        elif name == "complete_task":
            completes = True
    return MessageFacts(
        id=ident,
        type=kind,
        at=at,
        last_at=last,
        has_text=kind == "gemini" and bool(_text(content).strip()),
        output_tokens=_tokens(record.get("tokens")) if kind == "gemini" else None,
        model=_word(record.get("model")),
        tools=tuple(tools),
        todos=todos,
        topic=clip(topic, 120) if topic else None,
        agents=tuple(agents),
        completes=completes,
    )
