"""Rollout records reduced to the facts Cargento reads from them.

A rollout line is ``{"timestamp", "type", "payload"}``. Most of a long rollout's bytes are
encrypted reasoning, tool output and embedded instructions that say nothing Cargento shows,
so :func:`fact_from_line` looks at the first bytes of a line and parses the whole line only
when its type can carry a fact. :func:`fact_from_record` does the same for a record that was
already parsed (the incremental reader hands over parsed records).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

import attrs
from cargento.models import RateLimit, SpacedockBoot
from cargento.readers import loads_record
from cargento.sharedmethods import shared_methods
from cargento.spacedock import MAX_BOOT_BYTES, is_boot_command, parse_boot
from cargento.timestamps import parse_ts

from cargento_harness_codex.plan import PlanStep, plan_from_arguments, plan_from_exec_source

__all__ = [
    "KNOWN_ENVELOPES",
    "KNOWN_ITEMS",
    "Fact",
    "FactKind",
    "fact_from_line",
    "fact_from_record",
    "is_injected",
    "rate_limits",
]

FactKind = Literal[
    "other",
    "prompt",
    "agent",
    "turn_start",
    "turn_end",
    "plan",
    "model",
    "tool_call",
    "tool_output",
    "usage",
    "compaction",
]

_HEAD = 640
_TS = re.compile(rb'^\{"timestamp":"([^"]{1,64})"')
_ENVELOPE = re.compile(rb'"type":"([a-z_]{1,40})"')
_PAYLOAD_TYPE = re.compile(rb'"payload":\{"type":"([A-Za-z_]{1,40})"')
#: Envelope types never worth a full parse: their timestamp is all they contribute.
_SKIP_ENVELOPES = {b"session_meta", b"world_state"}
_SKIP_ITEMS = {
    b"reasoning",
    b"additional_tools",
    b"web_search_call",
    b"image_generation_call",
    b"ghost_snapshot",
}
_SKIP_EVENTS = {
    b"exec_command_output_delta",
    b"exec_command_begin",
    b"exec_command_end",
    b"agent_reasoning",
    b"agent_reasoning_raw_content",
    b"thread_settings_applied",
    b"mcp_tool_call_begin",
    b"mcp_tool_call_end",
    b"patch_apply_begin",
    b"patch_apply_end",
    b"turn_diff",
    b"background_event",
    b"item_started",
}
#: Envelope types the CLI writes (``RolloutItem`` and the lines beside it): any other is counted
#: as schema drift.
KNOWN_ENVELOPES = frozenset(
    {"session_meta", "world_state", "compacted", "event_msg", "response_item", "turn_context", "token_usage_record"}
)
#: ``response_item`` payload types (codex-rs ``protocol/src/models.rs`` ``ResponseItem``, and the
#: older ``ghost_snapshot``): any other is counted as schema drift. ``event_msg`` payload types are
#: not counted: the CLI persists a large and mode-dependent share of its event vocabulary, almost
#: all of it on purpose unused here, so an unfamiliar event says nothing about a missed reading.
KNOWN_ITEMS = frozenset(
    {
        "additional_tools",
        "message",
        "agent_message",
        "reasoning",
        "local_shell_call",
        "function_call",
        "tool_search_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call_output",
        "tool_search_output",
        "web_search_call",
        "image_generation_call",
        "compaction",
        "compaction_summary",
        "compaction_trigger",
        "context_compaction",
        "ghost_snapshot",
        "other",
    }
)
_TURN_STARTS = {"task_started", "turn_started"}
_TURN_ENDS = {"task_complete", "turn_complete", "turn_aborted", "task_aborted"}
_INJECTED_TAG = re.compile(r"^<[A-Za-z_][\w\-]*(?:\s[^>]*)?>")
_INJECTED_PREFIXES = ("# AGENTS.md instructions", "<user_instructions>", "<environment_context>")
_MAX_TEXT = 4000
_TOOL_IN_EXEC = re.compile(r"tools\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Fact:
    """One record's contribution to a session reading."""

    kind: FactKind
    at: datetime | None = None
    text: str | None = None
    #: A turn end's own duration in seconds, when the record carries one.
    duration_s: float | None = None
    plan: tuple[PlanStep, ...] | None = None
    #: Cumulative output tokens of the thread (``token_count`` / ``token_usage_record``).
    cumulative: int | None = None
    #: The thread a usage record belongs to, where the record names one.
    thread_id: str | None = None
    limits: tuple[RateLimit, ...] = ()
    #: A tool call's name as recorded, when ``text`` (its display name) renames it (MCP tools).
    raw: str | None = None
    #: A tool call or output's ``call_id``; on a call, whether it ran ``spacedock status --boot``;
    #: on an output, the boot it carries (a zero-exit wrapper around one complete boot object).
    call_id: str | None = None
    boot_call: bool = False
    boot: SpacedockBoot | None = None
    #: The record type this build does not know, when the record is one (schema drift).
    unknown: str | None = None


def is_injected(text: str) -> bool:
    """True for context Codex injects as a user message (environment, instructions, notices)."""
    stripped = text.lstrip()
    if stripped.startswith(_INJECTED_PREFIXES):
        return True
    return bool(_INJECTED_TAG.match(stripped))


def _clean(text: str | None) -> str | None:
    if not text or not text.strip():
        return None
    return text.strip()[:_MAX_TEXT]


def _content_text(content: Any, kinds: tuple[str, ...]) -> str | None:
    if isinstance(content, str):
        return _clean(content)
    if not isinstance(content, list):
        return None
    parts = [
        part["text"]
        for part in content
        if isinstance(part, dict) and part.get("type") in kinds and isinstance(part.get("text"), str)
    ]
    return _clean("\n".join(parts)) if parts else None


def _human(text: str | None) -> str | None:
    return None if text is None or is_injected(text) else text


def _int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = int(value)
    return number if number >= 0 else None


def _output(usage: Any) -> int | None:
    return _int(usage.get("output_tokens")) if isinstance(usage, dict) else None


def rate_limits(raw: Any, at: datetime | None) -> tuple[RateLimit, ...]:
    """The rate-limit windows of a ``token_count`` record's ``rate_limits`` object."""
    if not isinstance(raw, dict):
        return ()
    out: list[RateLimit] = []
    label = raw.get("limit_name") if isinstance(raw.get("limit_name"), str) else None
    for slot in ("primary", "secondary"):
        window = raw.get(slot)
        if not isinstance(window, dict):
            continue
        used = window.get("used_percent")
        if isinstance(used, bool) or not isinstance(used, int | float) or not 0 <= used <= 1000:
            continue
        minutes = _int(window.get("window_minutes"))
        resets = parse_ts(window.get("resets_at"))
        if resets is None and at is not None:
            delta = window.get("resets_in_seconds")
            if isinstance(delta, int | float) and not isinstance(delta, bool) and 0 <= delta < 10**8:
                resets = at + timedelta(seconds=float(delta))
        if minutes is None:
            name = slot
        else:
            name = "5h" if minutes < 1440 else "weekly"
        if label:
            name = f"{label} {name}"
        out.append(RateLimit(name=name, used_percent=float(used), window_minutes=minutes, resets_at=resets))
    return tuple(out)


def _tool_names(payload: dict[str, Any]) -> tuple[str, str | None] | None:
    """A tool call's display name and, when that renames it, the name as recorded: an MCP tool
    ``mcp__server__tool`` reads ``server · tool``, a namespaced one's raw name is its namespace
    and name joined the same way. ``None`` for a record without a usable name."""
    name = payload.get("name")
    if payload.get("type") == "local_shell_call":
        return "shell", None
    if not isinstance(name, str) or not name:
        return None
    if name == "exec":
        source = payload.get("input")
        if isinstance(source, str):
            match = _TOOL_IN_EXEC.search(source[:65536])
            if match:
                name = match.group(1)
    if name.startswith("mcp__"):
        parts = name.split("__")
        if len(parts) >= 3 and parts[1] and parts[-1]:
            return f"{parts[1]} · {'__'.join(parts[2:])}", name
    namespace = payload.get("namespace")
    if isinstance(namespace, str) and namespace.startswith("mcp__"):
        return f"{namespace[5:]} · {name}", f"{namespace}__{name}"
    return name, None


def _tool_name(payload: dict[str, Any]) -> str | None:
    names = _tool_names(payload)
    return names[0] if names else None


def _event_fact(payload: dict[str, Any], at: datetime | None) -> Fact:
    kind = payload.get("type")
    if kind == "user_message":
        text = _human(_clean(payload.get("message") if isinstance(payload.get("message"), str) else None))
        return Fact(kind="prompt", at=at, text=text) if text else Fact(kind="other", at=at)
    if kind == "agent_message":
        text = _clean(payload.get("message") if isinstance(payload.get("message"), str) else None)
        return Fact(kind="agent", at=at, text=text) if text else Fact(kind="other", at=at)
    if kind == "item_completed":
        item = payload.get("item")
        if isinstance(item, dict):
            if item.get("type") == "UserMessage":
                text = _human(_content_text(item.get("content"), ("text", "input_text")))
                return Fact(kind="prompt", at=at, text=text) if text else Fact(kind="other", at=at)
            if item.get("type") == "AgentMessage":
                text = _content_text(item.get("content"), ("Text", "text", "output_text"))
                return Fact(kind="agent", at=at, text=text) if text else Fact(kind="other", at=at)
        return Fact(kind="other", at=at)
    if kind in _TURN_STARTS:
        return Fact(kind="turn_start", at=at or parse_ts(payload.get("started_at")))
    if kind in _TURN_ENDS:
        millis = _int(payload.get("duration_ms"))
        seconds = millis / 1000.0 if millis is not None else None
        return Fact(kind="turn_end", at=at or parse_ts(payload.get("completed_at")), duration_s=seconds)
    if kind == "token_count":
        info = payload.get("info")
        cumulative = _output(info.get("total_token_usage")) if isinstance(info, dict) else None
        return Fact(kind="usage", at=at, cumulative=cumulative, limits=rate_limits(payload.get("rate_limits"), at))
    if kind == "plan_update":
        steps = plan_from_arguments(payload)
        return Fact(kind="plan", at=at, plan=steps) if steps is not None else Fact(kind="other", at=at)
    if kind == "context_compacted":
        return Fact(kind="compaction", at=at)
    return Fact(kind="other", at=at)


def _item_fact(payload: dict[str, Any], at: datetime | None) -> Fact:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role == "user":
            meta = payload.get("internal_chat_message_metadata_passthrough")
            kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
            if isinstance(kinds, list) and kinds and "user.text" not in kinds:
                return Fact(kind="other", at=at)
            text = _human(_content_text(payload.get("content"), ("input_text", "text")))
            return Fact(kind="prompt", at=at, text=text) if text else Fact(kind="other", at=at)
        if role == "assistant":
            text = _content_text(payload.get("content"), ("output_text", "text"))
            return Fact(kind="agent", at=at, text=text) if text else Fact(kind="other", at=at)
        return Fact(kind="other", at=at)
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        if payload.get("name") == "update_plan":
            steps = plan_from_arguments(payload.get("arguments"))
            if steps is not None:
                return Fact(kind="plan", at=at, plan=steps, text="update_plan")
        if kind == "custom_tool_call" and payload.get("name") == "exec":
            steps = plan_from_exec_source(payload.get("input"))
            if steps is not None:
                return Fact(kind="plan", at=at, plan=steps, text=_tool_name(payload))
        names = _tool_names(payload)
        if names is None:
            return Fact(kind="other", at=at)
        call = payload.get("call_id")
        return Fact(
            kind="tool_call",
            at=at,
            text=names[0],
            raw=names[1],
            call_id=call if isinstance(call, str) else None,
            boot_call=is_boot_command(_shell_command(payload)),
        )
    if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        call = payload.get("call_id")
        return Fact(
            kind="tool_output",
            at=at,
            call_id=call if isinstance(call, str) else None,
            boot=_boot_output(payload.get("output"), at),
        )
    if isinstance(kind, str) and kind not in KNOWN_ITEMS:
        return Fact(kind="other", at=at, unknown=f"response_item {kind}")
    return Fact(kind="other", at=at)


def _shell_command(payload: dict[str, Any]) -> str | None:
    """The shell command line a tool call ran, where it is one (``shell``, ``exec_command``,
    ``local_shell_call``); ``None`` otherwise."""
    given: Any = None
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        given = action.get("command") if isinstance(action, dict) else None
    elif isinstance(payload.get("arguments"), str) and len(payload["arguments"]) <= 65536:
        args = loads_record(payload["arguments"].encode())
        if args is not None:
            given = args.get("command", args.get("cmd"))
    if isinstance(given, list) and all(isinstance(part, str) for part in given):
        return " ".join(given)
    return given if isinstance(given, str) else None


def _boot_output(output: Any, at: datetime | None) -> SpacedockBoot | None:
    """The boot a function output carries: only the fulfilled-result wrapper whose integer exit
    code is zero and whose output is one complete boot JSON object."""
    if isinstance(output, str) and b"workflow_dir" in output.encode()[: MAX_BOOT_BYTES + 1024]:
        output = loads_record(output.encode())
    if not isinstance(output, dict):
        return None
    metadata = output.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    if isinstance(code, bool) or not isinstance(code, int) or code != 0:
        return None
    inner = output.get("output")
    return parse_boot(inner, at) if isinstance(inner, str) else None


def fact_from_record(record: dict[str, Any]) -> Fact:
    """The fact one parsed rollout record contributes (``other`` when it carries none)."""
    at = parse_ts(record.get("timestamp"))
    kind = record.get("type")
    payload = record.get("payload")
    if kind == "compacted":
        return Fact(kind="compaction", at=at)
    if not isinstance(kind, str) or kind not in KNOWN_ENVELOPES:
        return Fact(kind="other", at=at, unknown=kind[:80] if isinstance(kind, str) else "line without a type")
    if not isinstance(payload, dict):
        return Fact(kind="other", at=at)
    if kind == "event_msg":
        return _event_fact(payload, at)
    if kind == "response_item":
        return _item_fact(payload, at)
    if kind == "turn_context":
        model = payload.get("model")
        if isinstance(model, str) and model.strip():
            return Fact(kind="model", at=at, text=model.strip())
        return Fact(kind="other", at=at)
    if kind == "token_usage_record":
        thread = payload.get("thread_id")
        return Fact(
            kind="usage",
            at=at,
            cumulative=_output(payload.get("thread_token_usage")),
            thread_id=thread if isinstance(thread, str) else None,
        )
    return Fact(kind="other", at=at)


def fact_from_line(line: bytes) -> Fact | None:
    """The fact of one raw line, parsing it whole only when its head says it may carry one.

    Returns ``None`` for a line that is not a rollout record at all.
    """
    head = line[:_HEAD]
    stamp = _TS.match(head)
    if stamp is not None:
        envelope = _ENVELOPE.search(head, stamp.end())
        payload_type = _PAYLOAD_TYPE.search(head)
        if envelope is not None:
            etype = envelope.group(1)
            ptype = payload_type.group(1) if payload_type is not None else None
            at = parse_ts(stamp.group(1).decode("ascii", "replace"))
            if etype in _SKIP_ENVELOPES:
                return Fact(kind="other", at=at)
            if etype == b"compacted":
                return Fact(kind="compaction", at=at)
            if etype == b"response_item" and ptype in _SKIP_ITEMS:
                return Fact(kind="other", at=at)
            if (
                etype == b"response_item"
                and ptype in (b"function_call_output", b"custom_tool_call_output")
                and b"workflow_dir" not in line
            ):
                # Only a boot result is worth parsing an output for (see _boot_output).
                return Fact(kind="tool_output", at=at)
            if etype == b"event_msg" and ptype in _SKIP_EVENTS:
                return Fact(kind="other", at=at)
    record = loads_record(line)
    return fact_from_record(record) if record is not None else None
