"""Pi session records (format v3) reduced to what Cargento reads from them.

Line 1 is the ``session`` header; every later line is an entry ``{type, id, parentId,
timestamp, ...}`` of a tree. :func:`entry_from_record` keeps only the small facts of an entry
(never whole message bodies) so a long session's tree stays small in memory.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs
from cargento.models import SpacedockBoot
from cargento.sharedmethods import shared_methods
from cargento.spacedock import is_boot_command, parse_boot
from cargento.timestamps import parse_ts

__all__ = ["Entry", "Header", "entry_from_record", "header_from_record"]

_MAX_TEXT = 2000


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Header:
    """The ``session`` header on line 1."""

    id: str
    cwd: str | None = None
    started_at: datetime | None = None
    #: A fork's or clone's source session file: never a parent agent.
    parent_session: str | None = None


def header_from_record(record: dict[str, Any]) -> Header | None:
    """The header of a v3 session file, or ``None`` when line 1 is not one."""
    if record.get("type") != "session":
        return None
    sid = record.get("id")
    version = record.get("version")
    if not isinstance(sid, str) or not sid.strip():
        return None
    if isinstance(version, bool) or not isinstance(version, int) or version < 3:
        return None
    cwd = record.get("cwd")
    parent = record.get("parentSession")
    return Header(
        id=sid.strip(),
        cwd=cwd if isinstance(cwd, str) and cwd.strip() else None,
        started_at=parse_ts(record.get("timestamp")),
        parent_session=parent if isinstance(parent, str) and parent else None,
    )


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Entry:
    """The facts of one tree entry."""

    id: str
    parent: str | None
    #: ``message`` entries use their role (``user``, ``assistant``, ``toolResult``...);
    #: other entries their type (``model_change``, ``compaction``, ``session_info``...).
    kind: str
    at: datetime | None = None
    text: str | None = None
    #: Tool names an assistant message called, in order.
    tools: tuple[str, ...] = ()
    stop_reason: str | None = None
    provider: str | None = None
    model: str | None = None
    output_tokens: int | None = None
    #: ``session_info`` only: whether a name was set, and which (``None`` clears the title).
    name: str | None = None
    #: A tool result: the call it answers, its tool, whether it failed.
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    #: Assistant tool calls that ran ``spacedock status --boot`` (their ids).
    boot_calls: tuple[str, ...] = ()
    #: A tool result carrying one complete boot JSON object: what it names.
    boot: SpacedockBoot | None = None


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    else:
        return None
    text = text.strip()
    return text[:_MAX_TEXT] if text else None


def _full_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p["text"]
            for p in content
            if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def _output(usage: Any) -> int | None:
    if not isinstance(usage, dict):
        return None
    value = usage.get("output")
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return int(value)


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _word(value: Any) -> str | None:
    """A name from a small vocabulary (a provider, model, tool, stop reason or entry type),
    held once however many entries of a long session name it: the tree keeps every entry."""
    found = _str(value)
    return None if found is None else sys.intern(found)


def _assistant(entry: dict[str, Any], message: dict[str, Any], base: dict[str, Any]) -> Entry:
    tools: list[str] = []
    boots: list[str] = []
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "toolCall":
                continue
            name = _word(part.get("name"))
            if name:
                tools.append(name)
            args = part.get("arguments")
            command = args.get("command") if isinstance(args, dict) else None
            call = _str(part.get("id"))
            if call and is_boot_command(command):
                boots.append(call)
    stop = message.get("stopReason")
    return Entry(
        **base,
        kind="assistant",
        tools=tuple(tools),
        stop_reason=sys.intern(stop) if isinstance(stop, str) else None,
        provider=_word(message.get("provider")),
        model=_word(message.get("model")),
        output_tokens=_output(message.get("usage")),
        boot_calls=tuple(boots),
    )


def entry_from_record(record: dict[str, Any], read: Mapping[str, Entry] | None = None) -> Entry | None:
    """The facts of one entry line, or ``None`` for a line that is not a tree entry.

    *read*, the entries read before it by id: a parent among them is named by that entry's
    own id string rather than the line's copy of it (a tree keeps every entry)."""
    eid = record.get("id")
    if not isinstance(eid, str) or not eid:
        return None
    parent = record.get("parentId")
    kind = record.get("type")
    if not isinstance(kind, str) or kind == "session":
        return None
    if not isinstance(parent, str) or not parent:
        parent = None
    elif read is not None and (above := read.get(parent)) is not None:
        parent = above.id
    base: dict[str, Any] = {
        "id": eid,
        "parent": parent,
        "at": parse_ts(record.get("timestamp")),
    }
    if kind == "message":
        message = record.get("message")
        if not isinstance(message, dict):
            return Entry(**base, kind="message")
        role = message.get("role")
        if base["at"] is None:
            base["at"] = parse_ts(message.get("timestamp"))
        if role == "assistant":
            return _assistant(record, message, base)
        if role == "user":
            return Entry(**base, kind="user", text=_text(message.get("content")))
        if role == "toolResult":
            error = message.get("isError")
            return Entry(
                **base,
                kind="toolResult",
                tool_call_id=_str(message.get("toolCallId")),
                tool_name=_word(message.get("toolName")),
                is_error=error is True,
                output_tokens=_output(message.get("usage")),
                boot=None if error is True else parse_boot(_full_text(message.get("content")), base["at"]),
            )
        return Entry(**base, kind=sys.intern(role) if isinstance(role, str) and role else "message")
    kind = sys.intern(kind)
    if kind == "model_change":
        return Entry(**base, kind=kind, provider=_word(record.get("provider")), model=_word(record.get("modelId")))
    if kind in ("compaction", "branch_summary"):
        return Entry(**base, kind=kind, output_tokens=_output(record.get("usage")))
    if kind == "session_info":
        return Entry(**base, kind=kind, name=_str(record.get("name")))
    return Entry(**base, kind=kind)
