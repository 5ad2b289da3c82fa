"""Droid's JSONL records: a ``session_start`` header, then Anthropic-style messages.

Every function here takes one parsed record (whatever JSON object a line held) and never
raises: a field of the wrong type reads as absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import attrs
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["Header", "Message", "header_of", "message_of"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Header:
    """What a ``session_start`` line says about its session."""

    id: str | None = None
    title: str | None = None
    cwd: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Message:
    """One message line, reduced to what a reading needs."""

    role: str
    at: datetime | None
    #: The visible text of the message (text blocks or a plain string).
    text: str
    #: ``(id, name)`` of every ``tool_use`` block, in order.
    tool_uses: tuple[tuple[str, str], ...] = ()
    #: ``tool_use_id`` of every ``tool_result`` block: a user message carrying any is a tool
    #: reply, never a prompt.
    tool_results: tuple[str, ...] = ()
    #: The message holds only thinking blocks (the model is reasoning, no tool open).
    thinking_only: bool = False


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def header_of(record: dict[str, Any]) -> Header | None:
    """The header when *record* is a ``session_start`` line, else ``None``."""
    if record.get("type") != "session_start":
        return None
    return Header(
        id=_str(record.get("id")),
        title=_str(record.get("sessionTitle")) or _str(record.get("title")),
        cwd=_str(record.get("cwd")),
    )


def _blocks(content: object) -> Iterator[dict[str, Any]]:
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                yield block


def message_of(record: dict[str, Any]) -> Message | None:
    """The message when *record* is a ``message`` line with a user or assistant role."""
    if record.get("type") != "message":
        return None
    inner = record.get("message")
    if not isinstance(inner, dict):
        return None
    role = inner.get("role")
    if role not in ("user", "assistant"):
        return None
    content = inner.get("content")
    at = parse_ts(record.get("timestamp"))
    if isinstance(content, str):
        return Message(role=role, at=at, text=content)
    texts: list[str] = []
    uses: list[tuple[str, str]] = []
    results: list[str] = []
    kinds: set[str] = set()
    for block in _blocks(content):
        kind = block.get("type")
        if isinstance(kind, str):
            kinds.add(kind)
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            name = _str(block.get("name"))
            if name:
                uses.append((block["id"] if isinstance(block.get("id"), str) else "", name))
        elif kind == "tool_result":
            ident = block.get("tool_use_id")
            results.append(ident if isinstance(ident, str) else "")
    return Message(
        role=role,
        at=at,
        text="\n".join(texts),
        tool_uses=tuple(uses),
        tool_results=tuple(results),
        thinking_only=bool(kinds) and kinds <= {"thinking", "redacted_thinking"},
    )
