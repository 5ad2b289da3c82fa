"""What one Claude Code transcript record says, read defensively.

Every function takes one parsed JSON object exactly as it came off disk and never trusts a
field's type: a record damaged or written by another version yields ``None`` or an empty
answer, never an exception.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import attrs
from cargento.labels import clip, one_line
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = [
    "INPUT_TOOLS",
    "MESSAGE_TYPES",
    "ToolCall",
    "ToolResult",
    "assistant_output",
    "clean_prompt",
    "human_prompt",
    "is_interruption",
    "model_of",
    "record_type",
    "stop_reason",
    "text",
    "timestamp",
    "tool_calls",
    "tool_display",
    "tool_results",
]

#: Records that are conversation rather than bookkeeping.
MESSAGE_TYPES = frozenset({"user", "assistant", "system"})
#: Every record type Claude Code is known to write (bookkeeping included): any other is
#: counted as schema drift.
KNOWN_TYPES = MESSAGE_TYPES | frozenset(
    {
        "attachment",
        "summary",
        "custom-title",
        "ai-title",
        "agent-name",
        "last-prompt",
        "pr-link",
        "queue-operation",
        "file-history-snapshot",
        "mode",
        "permission-mode",
        "progress",
        "api-request",
        "api-request-blob",
        "api-request-shape",
        "atis-latch",
        "tools-used",
        "cost-state",
    }
)
#: Tools that stop and wait on the human until answered.
INPUT_TOOLS = frozenset({"AskUserQuestion", "ExitPlanMode"})
#: The model id Claude Code writes on locally generated (error, cancel) records.
SYNTHETIC_MODEL = "<synthetic>"
#: ``turnOrigin`` / ``promptSource`` values that mark a user record Claude Code wrote itself.
_NOT_HUMAN_ORIGINS = frozenset({"task_notification", "system", "hook", "teammate", "cron", "compact"})
#: Wrappers of user records that Claude Code writes itself (not typed by the operator).
_NOT_HUMAN_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<task-notification>",
    "<system-reminder>",
    "Caveat: The messages below were generated",
)
_NOT_HUMAN_MARKERS = ("<teammate-message", "<task-notification>")
_INTERRUPTED = re.compile(r"^\[Request interrupted by user[^\]]*\]")
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.S)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?>")
_LONG_PATH = re.compile(r"(?<![\w.])/(?:[^\s/]+/)+([^\s/]+)")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ToolCall:
    """One ``tool_use`` block of an assistant record."""

    id: str | None
    name: str
    input: dict[str, Any]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ToolResult:
    """One ``tool_result`` block of a user record."""

    tool_use_id: str | None
    is_error: bool
    #: The result's content as recorded (read with :func:`result_text` only when needed).
    content: Any = attrs.field(default=None, eq=False, repr=False)


def record_type(record: dict[str, Any]) -> str:
    """The record's ``type``, or an empty string."""
    value = record.get("type")
    return value if isinstance(value, str) else ""


def timestamp(record: dict[str, Any]) -> datetime | None:
    """The record's own ``timestamp`` (bookkeeping records carry none)."""
    return parse_ts(record.get("timestamp"))


def _message(record: dict[str, Any]) -> dict[str, Any]:
    message = record.get("message")
    return message if isinstance(message, dict) else {}


def _content(record: dict[str, Any]) -> str | list[Any] | None:
    content = _message(record).get("content")
    if isinstance(content, str | list):
        return content
    return None


def text(record: dict[str, Any]) -> str:
    """The plain text of a user or assistant record (text blocks joined by a newline)."""
    content = _content(record)
    if isinstance(content, str):
        return content
    if not content:
        return ""
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n".join(parts)


def tool_calls(record: dict[str, Any]) -> Iterator[ToolCall]:
    """The ``tool_use`` blocks of an assistant record."""
    content = _content(record)
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        name = block.get("name")
        if not isinstance(name, str) or not name:
            continue
        ident = block.get("id")
        given = block.get("input")
        yield ToolCall(
            id=ident if isinstance(ident, str) else None, name=name, input=given if isinstance(given, dict) else {}
        )


def tool_results(record: dict[str, Any]) -> Iterator[ToolResult]:
    """The ``tool_result`` blocks of a user record."""
    content = _content(record)
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        ident = block.get("tool_use_id")
        yield ToolResult(
            tool_use_id=ident if isinstance(ident, str) else None,
            is_error=block.get("is_error") is True,
            content=block.get("content"),
        )


def result_text(content: Any) -> str | None:
    """A tool result's text: the string, or its text blocks joined; ``None`` without any."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


def has_tool_results(record: dict[str, Any]) -> bool:
    """True when a user record carries at least one ``tool_result`` block."""
    return any(True for _ in tool_results(record))


def is_interruption(record: dict[str, Any]) -> bool:
    """True for the user record Claude Code writes when the operator interrupts a turn."""
    if record_type(record) != "user":
        return False
    return bool(_INTERRUPTED.match(text(record).strip()))


def human_prompt(record: dict[str, Any]) -> str | None:
    """The text the operator typed, when this record is a human prompt; else ``None``.

    A user record is a prompt unless it is meta, carries tool results, is an interruption
    marker, is marked as system-originated (``turnOrigin``/``promptSource``), or is one of
    the wrappers Claude Code writes itself (command output, task notifications, teammate
    messages).
    """
    if record_type(record) != "user" or record.get("isMeta") is True:
        return None
    if has_tool_results(record) or is_interruption(record):
        return None
    for key in ("turnOrigin", "promptSource"):
        origin = record.get(key)
        if isinstance(origin, str) and origin in _NOT_HUMAN_ORIGINS:
            return None
    origin_obj = record.get("origin")
    if isinstance(origin_obj, dict) and origin_obj.get("kind") not in (None, "human"):
        return None
    body = text(record).strip()
    if not body or body.startswith(_NOT_HUMAN_PREFIXES) or any(m in body for m in _NOT_HUMAN_MARKERS):
        return None
    return body


def clean_prompt(body: str, limit: int = 80) -> str:
    """One display line from a prompt: ``/cmd args`` for slash commands, wrapper tags
    stripped, long absolute paths shortened to their last segment, clipped at *limit*."""
    name = _COMMAND_NAME.search(body)
    if name:
        args = _COMMAND_ARGS.search(body)
        line = one_line(name.group(1)) + (" " + one_line(args.group(1)) if args and args.group(1).strip() else "")
        return clip(line, limit)
    stripped = _TAG.sub(" ", body)

    def shorten(match: re.Match[str]) -> str:
        return match.group(1) if len(match.group(0)) >= 25 else match.group(0)

    return clip(_LONG_PATH.sub(shorten, one_line(stripped)), limit)


def model_of(record: dict[str, Any]) -> str | None:
    """The model of an assistant record; never the ``<synthetic>`` sentinel."""
    model = _message(record).get("model")
    if not isinstance(model, str) or not model or model == SYNTHETIC_MODEL:
        return None
    return model


def is_synthetic(record: dict[str, Any]) -> bool:
    """True for an assistant record Claude Code generated locally (API errors, cancels)."""
    return _message(record).get("model") == SYNTHETIC_MODEL


def stop_reason(record: dict[str, Any]) -> str | None:
    """``message.stop_reason`` of an assistant record (``end_turn``, ``tool_use``...)."""
    value = _message(record).get("stop_reason")
    return value if isinstance(value, str) else None


def assistant_output(record: dict[str, Any]) -> tuple[str | None, int | None]:
    """``(message.id, usage.output_tokens)`` of an assistant record."""
    message = _message(record)
    ident = message.get("id")
    usage = message.get("usage")
    tokens = usage.get("output_tokens") if isinstance(usage, dict) else None
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        tokens = None
    return (ident if isinstance(ident, str) and ident else None), tokens


def _words(part: str) -> str:
    return part.replace("_", " ").replace("-", " ").strip()


def tool_display(name: str) -> str:
    """A tool's display name: MCP tools ``mcp__linear__list_issues`` read ``Linear · list issues``."""
    if name.startswith("mcp__"):
        pieces = name[len("mcp__") :].split("__", 1)
        if len(pieces) == 2 and pieces[0] and pieces[1]:
            service = _words(pieces[0])
            service = service[:1].upper() + service[1:]
            return f"{service} · {_words(pieces[1])}"
    return name


def input_summary(call: ToolCall, limit: int = 160) -> str | None:
    """What a pending input tool asks: the first question (``+N more``) or the plan's first line."""
    if call.name == "AskUserQuestion":
        questions = call.input.get("questions")
        if isinstance(questions, list):
            texts = [
                q["question"]
                for q in questions
                if isinstance(q, dict) and isinstance(q.get("question"), str) and q["question"].strip()
            ]
            if texts:
                more = f" (+{len(texts) - 1} more)" if len(texts) > 1 else ""
                return clip(texts[0], limit - len(more)) + more
        single = call.input.get("question")
        if isinstance(single, str) and single.strip():
            return clip(single, limit)
        return None
    if call.name == "ExitPlanMode":
        plan = call.input.get("plan")
        if isinstance(plan, str):
            for line in plan.splitlines():
                cleaned = line.strip().lstrip("#*->` ").strip()
                if cleaned:
                    return clip(cleaned, limit)
        return None
    return None


def call_summary(call: ToolCall, limit: int = 120) -> str:
    """A short line naming a tool call: ``Bash: pytest -q`` or the tool's display name."""
    shown = tool_display(call.name)
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            return clip(f"{shown}: {one_line(value)}", limit)
    return shown
