"""The account of a session a reading sends: bounded, redacted, and per harness.

What is read depends on what the harness lets Cargento see:

* every harness: the published instruction (your latest prompt, with its time), the tracked
  tasks, the running and finished subagents (dispatches) and the gate the session stands at;
* Claude Code: also the checks the session ran (each Bash command with the last 180 characters
  of what it printed, as the tool reported it) and the paths of the files it wrote, read from its
  transcript; only when tool output is allowed for the provider's destination;
* Pi: also the demonstrated work results (each tool result on the session's file with its last
  180 characters), under the same permission.

Everything goes through :func:`cargento.redact.redact` before it is counted, and the entries are
kept newest first until the byte budget the prompt leaves is spent. The harness store is only
read (a bounded tail), never written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import orjson
from cargento.board import BoardSession
from cargento.redact import redact

__all__ = ["TAIL", "WORK_HARNESSES", "Account", "build_account"]

#: How much of each check's output is sent.
TAIL = 180
#: The harnesses whose work (not only instructions) a reading can read.
WORK_HARNESSES = ("claude", "pi")
#: The most of a transcript read from its end.
_READ_LIMIT = 4 * 1024 * 1024
_WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")


@attrs.frozen(kw_only=True)
class Account:
    #: One line per entry, oldest first, already redacted.
    entries: tuple[str, ...]
    #: Whether the session's work (checks, files, results) was part of what could be sent.
    reads_work: bool
    #: Whether tool output is among the entries.
    tool_output: bool
    #: What was left out and why, for the disclosure.
    notes: tuple[str, ...] = ()

    def fit(self, budget: int) -> tuple[list[str], int]:
        """The newest entries whose UTF-8 size fits *budget*, oldest first, and how many were left out."""
        kept: list[str] = []
        used = 0
        for entry in reversed(self.entries):
            size = len(entry.encode("utf-8")) + 1
            if used + size > budget:
                break
            kept.append(entry)
            used += size
        kept.reverse()
        return kept, len(self.entries) - len(kept)


def _clip(text: str, limit: int = 400) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _tail(text: str) -> str:
    one = " ".join(text.split())
    return one[-TAIL:]


def _read_tail(path: Path) -> list[dict[str, Any]]:
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - _READ_LIMIT))
            raw = fh.read(_READ_LIMIT)
    except OSError:
        return []
    records: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    if len(raw) >= _READ_LIMIT:
        lines = lines[1:]  # the first line of a tail is usually cut
    for line in lines:
        with contextlib.suppress(orjson.JSONDecodeError):
            found = orjson.loads(line)
            if isinstance(found, dict):
                records.append(found)
    return records


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_text_of(part.get("text") if isinstance(part, dict) else part) for part in content)
    return ""


def claude_transcript(sid: str, env: Mapping[str, str], home: Path) -> Path | None:
    root = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    with contextlib.suppress(OSError):
        for found in (root / "projects").glob(f"*/{sid}.jsonl"):
            return found
    return None


def claude_work(records: list[dict[str, Any]]) -> Iterator[str]:
    """Checks run (command and output tail) and files written, in transcript order."""
    calls: dict[str, tuple[str, str]] = {}
    for record in records:
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "tool_use" and isinstance(part.get("input"), dict):
                name = str(part.get("name") or "")
                tool_input = part["input"]
                if name == "Bash" and isinstance(tool_input.get("command"), str):
                    calls[str(part.get("id"))] = ("check", tool_input["command"])
                elif name in _WRITE_TOOLS:
                    path = tool_input.get("file_path") or tool_input.get("notebook_path")
                    if isinstance(path, str):
                        yield f"file written ({name}): {path}"
            elif part.get("type") == "tool_result":
                call = calls.pop(str(part.get("tool_use_id")), None)
                if call is not None:
                    failed = " (the tool reported an error)" if part.get("is_error") else ""
                    yield f"check ran: {_clip(call[1], 300)}{failed} — output ends: {_tail(_text_of(part.get('content')))}"


def pi_file(sid: str, env: Mapping[str, str], home: Path) -> Path | None:
    if env.get("PI_CODING_AGENT_SESSION_DIR"):
        root = Path(env["PI_CODING_AGENT_SESSION_DIR"])
    else:
        config = Path(env["PI_CODING_AGENT_DIR"]) if env.get("PI_CODING_AGENT_DIR") else home / ".pi" / "agent"
        root = config / "sessions"
    with contextlib.suppress(OSError):
        for pattern in (f"*{sid}.jsonl", f"*/*{sid}.jsonl"):
            for found in root.glob(pattern):
                return found
    return None


def pi_path(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries on the active branch (the newest entry and its ancestors), oldest first; a
    sibling branch is not the session's work. When the ancestry breaks, every entry is kept."""
    by_id = {r["id"]: r for r in records if isinstance(r.get("id"), str)}
    leaf = next((r for r in reversed(records) if isinstance(r.get("id"), str) and r.get("type") != "session"), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    node = leaf
    while node is not None:
        node_id = node.get("id")
        if not isinstance(node_id, str) or node_id in seen:
            return records
        seen.add(node_id)
        path.append(node)
        parent = node.get("parentId")
        if parent is None:
            break
        node = by_id.get(parent) if isinstance(parent, str) else None
        if node is None:
            return records
    path.reverse()
    return path


def pi_work(records: list[dict[str, Any]]) -> Iterator[str]:
    """Demonstrated work results on the active branch: each tool result (and bash execution)
    with its output tail."""
    names: dict[str, str] = {}
    for record in pi_path(records):
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant" and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") == "toolCall":
                    arguments = part.get("arguments")
                    what = arguments.get("command") if isinstance(arguments, dict) else None
                    names[str(part.get("id"))] = f"{part.get('name')}" + (
                        f" {_clip(what, 300)}" if isinstance(what, str) else ""
                    )
        elif role == "toolResult":
            name = names.get(str(message.get("toolCallId")), str(message.get("toolName") or "a tool"))
            failed = " (the tool reported an error)" if message.get("isError") else ""
            yield f"work result: {name}{failed} — output ends: {_tail(_text_of(message.get('content')))}"
        elif role == "bashExecution" and isinstance(message.get("command"), str):
            yield f"work result: bash {_clip(message['command'], 300)} — output ends: {_tail(str(message.get('output') or ''))}"


def _board_entries(session: BoardSession) -> list[str]:
    entries: list[str] = []
    for task in session.tasks:
        entries.append(f"task ({task.status}): {_clip(task.subject)}")
    for sub in session.subagents:
        entries.append(f"dispatch: {_clip(sub.name)} ({'running' if sub.running else 'no longer running'})")
    if session.waiting is not None:
        entries.append(f"gate ({session.waiting.kind}): {_clip(session.waiting.text or 'waiting on you')}")
    if session.instruction is not None:
        at = session.instruction.at.isoformat() if session.instruction.at else "time unknown"
        entries.append(f"instruction ({at}): {_clip(session.instruction.text, 1200)}")
    return entries


def build_account(session: BoardSession, *, env: Mapping[str, str], home: Path, tool_output: bool) -> Account:
    """The redacted account of *session* (see the module docstring)."""
    entries = _board_entries(session)
    notes: list[str] = []
    work: list[str] = []
    reads_work = session.harness in WORK_HARNESSES
    if reads_work and not tool_output:
        notes.append("tool output was not sent: it is not allowed for this destination")
    elif session.harness == "claude":
        found = claude_transcript(session.session_id, env, home)
        work = list(claude_work(_read_tail(found))) if found else []
        if found is None:
            notes.append("the session's transcript was not found, so no checks or files were read")
    elif session.harness == "pi":
        found = pi_file(session.session_id, env, home)
        work = list(pi_work(_read_tail(found))) if found else []
        if found is None:
            notes.append("the session's file was not found, so no work results were read")
    if not reads_work:
        notes.append(
            "Cargento can't read work from this harness: only instructions, dispatches and gate decisions are sent"
        )
    return Account(
        entries=tuple(redact(e) for e in (work + entries)),
        reads_work=reads_work,
        tool_output=bool(work),
        notes=tuple(notes),
    )
