"""The ``work_record`` hook: the checks a session ran and the files it wrote, from its transcript.

Each Bash tool call with the last 180 characters of what it printed (as the tool reported it),
and each path a write tool named, in transcript order. Read-only and bounded: only the last
4 MiB of the transcript are read (:func:`cargento.readers.tail_records`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cargento import HarnessContext, SessionRef, WorkRecord
from cargento.readers import glob_files, tail_records
from cargento.worktext import content_text, last_chars, one_line

from cargento_harness_claude import locations

__all__ = ["DESCRIBES", "TAIL", "claude_work", "transcript_for", "work_record"]

#: How much of each check's output is quoted.
TAIL = 180
#: The most of a transcript read, from its end.
READ_LIMIT = 4 * 1024 * 1024
DESCRIBES = "the checks the session ran with the last 180 characters each printed, and the paths of the files it wrote"
_WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")


def transcript_for(ref: SessionRef, ctx: HarnessContext) -> Path | None:
    """The session's transcript: the discovered path, else ``projects/*/<sid>.jsonl``."""
    if ref.path.endswith(".jsonl") and os.path.isfile(ref.path):
        return Path(ref.path)
    found, _problems = glob_files(locations.store(ctx).projects, f"*/{ref.session_id}.jsonl")
    return found[0] if found else None


def claude_work(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    """Checks run (command and output tail) and files written, in transcript order."""
    calls: dict[str, str] = {}
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
                    calls[str(part.get("id"))] = tool_input["command"]
                elif name in _WRITE_TOOLS:
                    path = tool_input.get("file_path") or tool_input.get("notebook_path")
                    if isinstance(path, str):
                        yield f"file written ({name}): {one_line(path, 400)}"
            elif part.get("type") == "tool_result":
                command = calls.pop(str(part.get("tool_use_id")), None)
                if command is not None:
                    failed = " (the tool reported an error)" if part.get("is_error") else ""
                    yield f"check ran: {one_line(command, 300)}{failed} — output ends: {last_chars(content_text(part.get('content')), TAIL)}"


def work_record(ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord:
    """See the ``work_record`` hookspec."""
    if not tool_output:
        return WorkRecord(describes=DESCRIBES)
    found = transcript_for(ref, ctx)
    if found is None:
        return WorkRecord(
            describes=DESCRIBES, notes=("the session's transcript was not found, so no checks or files were read",)
        )
    try:
        records = tail_records(found, READ_LIMIT)
    except OSError as exc:
        return WorkRecord(
            describes=DESCRIBES, notes=(f"the session's transcript could not be read ({exc.strerror or exc})",)
        )
    return WorkRecord(describes=DESCRIBES, lines=tuple(claude_work(records)))
