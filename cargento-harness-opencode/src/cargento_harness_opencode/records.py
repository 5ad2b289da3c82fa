"""Parsing OpenCode's JSON columns: ``message.data``, ``part.data`` and ``session.model``.

``message`` has no type column: the role (``user`` / ``assistant``) is inside ``data``, with
``time.created``, ``time.completed`` (absent while the assistant is still generating),
``modelID``, ``tokens.output`` and ``finish``. A prompt is the ``text`` of a part typed
``text`` on a user message (``synthetic`` and ``ignored`` parts are the harness's own, and a
``file`` part is an attachment, never a prompt). Every field is read defensively: malformed
JSON or a field of the wrong type reads as absent.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import attrs
import orjson
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = [
    "KNOWN_PARTS",
    "KNOWN_ROLES",
    "Message",
    "ToolPart",
    "model_id",
    "parse_message",
    "part_type",
    "prompt_text",
    "tool_part",
]

#: Message roles the CLI writes (``MessageV2.User`` / ``Assistant``): any other is schema drift.
KNOWN_ROLES = frozenset({"user", "assistant"})
#: Part types the CLI writes (the ``MessageV2.Part`` union of sst/opencode's
#: ``session/message-v2.ts``): any other is counted as schema drift.
KNOWN_PARTS = frozenset(
    {
        "text",
        "subtask",
        "reasoning",
        "file",
        "tool",
        "step-start",
        "step-finish",
        "snapshot",
        "patch",
        "agent",
        "retry",
        "compaction",
        "compaction-restore",
    }
)


def _loads(raw: object) -> dict[str, Any]:
    if isinstance(raw, bytes | str) and raw:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _count(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return int(value)
    return None


def _ms(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return parse_ts(value)


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Message:
    """One row of ``message``: who wrote it, when, and what it cost."""

    id: str
    role: str | None
    created_at: datetime | None
    completed_at: datetime | None
    updated_at: datetime | None
    model: str | None = None
    output_tokens: int | None = None
    finish: str | None = None
    error: bool = False
    #: The role as written when it is not one this build knows (schema drift).
    unknown_role: str | None = None

    @property
    def generating(self) -> bool:
        """An assistant message still lacking ``time.completed`` (and no error recorded)."""
        return self.role == "assistant" and self.completed_at is None and not self.error


def parse_message(ident: object, created: object, updated: object, raw: object) -> Message:
    """Build a :class:`Message` from a row; the row's own columns back up missing fields."""
    data = _loads(raw)
    times = _dict(data.get("time"))
    role = data.get("role")
    tokens = _dict(data.get("tokens"))
    return Message(
        id=ident if isinstance(ident, str) else "",
        role=role if role in ("user", "assistant") else None,
        created_at=_ms(times.get("created")) or _ms(created),
        completed_at=_ms(times.get("completed")),
        updated_at=_ms(updated),
        model=_str(data.get("modelID")),
        output_tokens=_count(tokens.get("output")),
        finish=_str(data.get("finish")),
        error=isinstance(data.get("error"), dict),
        unknown_role=role[:80] if isinstance(role, str) and role not in KNOWN_ROLES else None,
    )


def prompt_text(raw: object) -> str | None:
    """The typed text of a user message's part, or ``None`` for any other part."""
    return _prompt_of(_loads(raw))


def _prompt_of(data: dict[str, Any]) -> str | None:
    if data.get("type") != "text" or data.get("synthetic") is True or data.get("ignored") is True:
        return None
    return _str(data.get("text"))


def part_type(raw: object) -> tuple[str | None, str | None]:
    """A part's ``type`` and, for a typed text part, its prompt text (one parse of ``data``)."""
    data = _loads(raw)
    kind = data.get("type")
    return (kind if isinstance(kind, str) else None), _prompt_of(data)


@shared_methods
@attrs.frozen(repr=False, eq=False)
class ToolPart:
    """The parts of a tool call's state the board needs, and nothing it must not show."""

    tool: str
    status: str | None
    started_at: datetime | None
    #: The tool has written progress metadata (bash does so the moment its command starts).
    has_metadata: bool


def tool_part(kind: object, tool: object, status: object, metadata_type: object, start: object) -> ToolPart | None:
    """A tool part from the scalar fields extracted in SQL; ``None`` for any other part."""
    if kind != "tool" or not isinstance(tool, str) or not tool:
        return None
    return ToolPart(
        tool=tool,
        status=status if isinstance(status, str) else None,
        started_at=_ms(start),
        has_metadata=metadata_type == "object",
    )


def model_id(raw: object) -> str | None:
    """The model id inside ``session.model`` (``{"id": ..., "providerID": ...}``)."""
    data = _loads(raw)
    return _str(data.get("id")) or _str(data.get("modelID"))
