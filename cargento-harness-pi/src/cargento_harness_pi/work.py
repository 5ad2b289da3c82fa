"""The ``work_record`` hook: the work results a Pi session demonstrated, from its session file.

Each tool result (and each bash execution) on the session's active branch, with the last 180
characters of its output; a sibling branch is not the session's work. Read-only and bounded:
only the last 4 MiB of the file are read (:func:`cargento.readers.tail_records`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from cargento import HarnessContext, SessionRef, WorkRecord
from cargento.readers import glob_files, tail_records
from cargento.worktext import content_text, last_chars, one_line

from cargento_harness_pi import locations

__all__ = ["DESCRIBES", "TAIL", "active_branch", "pi_work", "session_file", "work_record"]

#: How much of each result's output is quoted.
TAIL = 180
#: The most of a session file read, from its end.
READ_LIMIT = 4 * 1024 * 1024
DESCRIBES = "the demonstrated work results, with the last 180 characters of each"


def session_file(ref: SessionRef, ctx: HarnessContext) -> Path | None:
    """The session's file: the discovered path, else ``*<sid>.jsonl`` in the session store."""
    if ref.path.endswith(".jsonl") and os.path.isfile(ref.path):
        return Path(ref.path)
    store = locations.root(ctx).path
    for pattern in (f"*{ref.session_id}.jsonl", f"*/*{ref.session_id}.jsonl"):
        found, _problems = glob_files(store, pattern)
        if found:
            return found[0]
    return None


def active_branch(records: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """The entries on the active branch (the newest entry and its ancestors), oldest first;
    when the ancestry breaks (the tail cut it, or an id is missing), every entry is kept."""
    by_id = {r["id"]: r for r in records if isinstance(r.get("id"), str)}
    node = next((r for r in reversed(records) if isinstance(r.get("id"), str) and r.get("type") != "session"), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
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


def pi_work(records: Sequence[dict[str, Any]]) -> Iterator[str]:
    """Demonstrated work results on the active branch: each tool result (and bash execution)
    with its output tail."""
    names: dict[str, str] = {}
    for record in active_branch(records):
        message = record.get("message")
        if record.get("type") != "message" or not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant" and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") == "toolCall":
                    arguments = part.get("arguments")
                    what = arguments.get("command") if isinstance(arguments, dict) else None
                    names[str(part.get("id"))] = one_line(str(part.get("name")), 80) + (
                        f" {one_line(what, 300)}" if isinstance(what, str) else ""
                    )
        elif role == "toolResult":
            name = names.get(str(message.get("toolCallId")), one_line(str(message.get("toolName") or "a tool"), 80))
            failed = " (the tool reported an error)" if message.get("isError") else ""
            yield f"work result: {name}{failed} — output ends: {last_chars(content_text(message.get('content')), TAIL)}"
        elif role == "bashExecution" and isinstance(message.get("command"), str):
            yield f"work result: bash {one_line(message['command'], 300)} — output ends: {last_chars(str(message.get('output') or ''), TAIL)}"


def work_record(ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord:
    """See the ``work_record`` hookspec."""
    if not tool_output:
        return WorkRecord(describes=DESCRIBES)
    found = session_file(ref, ctx)
    if found is None:
        return WorkRecord(
            describes=DESCRIBES, notes=("the session's file was not found, so no work results were read",)
        )
    try:
        records = tail_records(found, READ_LIMIT)
    except OSError as exc:
        return WorkRecord(describes=DESCRIBES, notes=(f"the session's file could not be read ({exc.strerror or exc})",))
    return WorkRecord(describes=DESCRIBES, lines=tuple(pi_work(records)))
