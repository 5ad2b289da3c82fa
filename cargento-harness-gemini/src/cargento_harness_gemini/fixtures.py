"""Write realistic Gemini CLI chat stores, for tests and for the ``cargento --demo`` simulator.

Importable without any test dependency. Records follow what Gemini CLI 0.61.0 wrote in the
golden stores: a metadata line, a ``$set.messages`` snapshot holding the CLI's
``<session_context>`` preamble, messages each followed by a ``$set.lastUpdated`` patch, a model
message written first without its tool calls and re-appended under the same id with them once
they finish, and tool results carried back by a user message of ``functionResponse`` parts.
Every write takes an explicit timestamp and stamps the file's mtime with it::

    from cargento_harness_gemini.fixtures import GeminiStore

    store = GeminiStore(home)
    chat = store.session("63e634b8-...", cwd="/w/proj", at=t0)
    chat.prompt("plan the parser work", at=t0)
    chat.tool("write_todos", at=t1, args={"todos": [{"description": "Write it", "status": "in_progress"}]})
    waiting = chat.wait("I'll run the tests.", at=t2)        # an approval prompt: no tool call written yet
    chat.answer(waiting, [ToolCall("run_shell_command", {"command": "pytest"})], at=t3)
    chat.reply("Done.", at=t4, output_tokens=12)
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["GeminiChat", "GeminiStore", "Pending", "ToolCall"]

MODEL = "gemini-2.5-flash"
_DISPLAY = {
    "run_shell_command": "Shell",
    "write_todos": "WriteTodos",
    "update_topic": "Update Topic Context",
    "invoke_agent": "Invoke Subagent",
    "complete_task": "Complete Task",
    "read_file": "ReadFile",
}


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@shared_methods
@attrs.define(repr=False, eq=False)
class ToolCall:
    """One tool call the model makes; ``extra`` adds fields such as ``agentId``."""

    name: str
    args: dict[str, Any] = attrs.Factory(dict)
    output: str = "ok"
    status: str = "success"
    display_name: str | None = None
    extra: dict[str, Any] = attrs.Factory(dict)


@shared_methods
@attrs.define(repr=False, eq=False)
class Pending:
    """A model message whose tool calls are not written yet (running, or waiting for approval)."""

    record: dict[str, Any]


class GeminiStore:
    """A ``.gemini`` directory under a home (or under ``GEMINI_CLI_HOME``)."""

    def __init__(self, home: Path, *, gemini_cli_home: Path | None = None) -> None:
        self.root = (gemini_cli_home or home) / ".gemini"
        self.root.mkdir(parents=True, exist_ok=True)
        self._sessions = itertools.count(1)

    def project(self, cwd: str, short: str | None = None, *, register: bool = True) -> Path:
        """The ``tmp/<short>`` folder of *cwd*, recorded in ``projects.json`` and
        ``.project_root`` unless *register* is false (an older, hash-named folder)."""
        name = short or Path(cwd).name or "root"
        folder = self.root / "tmp" / name / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        if register:
            table_path = self.root / "projects.json"
            table = json.loads(table_path.read_text()) if table_path.exists() else {"projects": {}}
            table["projects"][cwd] = name
            table_path.write_text(json.dumps(table, indent=2))
            (folder.parent / ".project_root").write_text(cwd)
        return folder.parent

    def session(
        self,
        session_id: str | None = None,
        *,
        cwd: str,
        at: datetime,
        short: str | None = None,
        preamble: bool = True,
        directories_on_line1: bool = False,
    ) -> GeminiChat:
        """Start a main session in *cwd*'s project folder."""
        ident = session_id or str(uuid.UUID(int=next(self._sessions), version=4))
        folder = self.project(cwd, short)
        name = f"session-{at.astimezone(UTC).strftime('%Y-%m-%dT%H-%M')}-{ident[:8]}.jsonl"
        chat = GeminiChat(folder / "chats" / name, ident, cwd)
        chat._header(at, kind="main", directories=[cwd] if directories_on_line1 else None)
        if preamble:
            chat._preamble(at)
        return chat


class GeminiChat:
    """One chat file being written."""

    def __init__(self, path: Path, session_id: str, cwd: str) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self._ids = itertools.count(1)
        self.messages: dict[str, dict[str, Any]] = {}

    # -- raw ---------------------------------------------------------------------------

    def append(self, record: dict[str, Any] | bytes, at: datetime) -> None:
        """Append one line (or raw bytes, perhaps a half-written line) and stamp the mtime."""
        data = record if isinstance(record, bytes) else json.dumps(record, separators=(",", ":")).encode() + b"\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            fh.write(data)
        os.utime(self.path, (at.timestamp(), at.timestamp()))

    def _id(self) -> str:
        return str(uuid.UUID(int=zlib.crc32(self.session_id.encode()) << 64 | next(self._ids), version=4))

    def _header(self, at: datetime, *, kind: str, directories: list[str] | None) -> None:
        record: dict[str, Any] = {
            "sessionId": self.session_id,
            "projectHash": "0" * 64,
            "startTime": _iso(at),
            "lastUpdated": _iso(at),
            "kind": kind,
        }
        if directories is not None:
            record["directories"] = directories
        self.append(record, at)

    def _preamble(self, at: datetime) -> None:
        text = f"<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - {self.cwd}\n</session_context>"
        message: dict[str, Any] = {"id": self._id(), "timestamp": _iso(at), "type": "user", "content": [{"text": text}]}
        self.messages[message["id"]] = message
        self.append({"$set": {"messages": [message], "lastUpdated": _iso(at)}}, at)

    def _updated(self, at: datetime) -> None:
        self.append({"$set": {"lastUpdated": _iso(at)}}, at)

    def message(self, record: dict[str, Any], at: datetime) -> str:
        """Append (or re-append, same ``id``) a message and its ``lastUpdated`` patch."""
        self.messages[record["id"]] = record
        self.append(record, at)
        self._updated(at)
        return str(record["id"])

    # -- what a session does -----------------------------------------------------------

    def prompt(self, text: str, at: datetime) -> str:
        """The human types a prompt."""
        return self.message({"id": self._id(), "timestamp": _iso(at), "type": "user", "content": [{"text": text}]}, at)

    def reply(self, text: str, at: datetime, *, output_tokens: int = 17, model: str = MODEL) -> str:
        """The model answers with text and no tool call (how Gemini CLI records a turn's end)."""
        return self.message(self._model_message(text, at, output_tokens, model), at)

    def _model_message(self, text: str, at: datetime, output_tokens: int, model: str) -> dict[str, Any]:
        return {
            "id": self._id(),
            "timestamp": _iso(at),
            "type": "gemini",
            "content": text,
            "thoughts": [],
            "tokens": {
                "input": 100,
                "output": output_tokens,
                "cached": 0,
                "thoughts": 0,
                "tool": 0,
                "total": 100 + output_tokens,
            },
            "model": model,
        }

    def wait(self, text: str, at: datetime, *, output_tokens: int = 28, model: str = MODEL) -> Pending:
        """The model asks for tool calls: written without them until they finish, which is all the
        store shows while a call runs or waits for approval."""
        record = self._model_message(text, at, output_tokens, model)
        self.message(record, at)
        return Pending(record)

    def answer(self, pending: Pending, calls: Sequence[ToolCall], at: datetime) -> str:
        """The tool calls finish (approved and run): the model message is re-appended under the
        same id with its tool calls, then a user message carries the function responses back."""
        record = dict(pending.record)
        written = []
        responses = []
        for index, call in enumerate(calls):
            ident = f"{call.name}__{call.name}_{int(at.timestamp() * 1000)}_{index}"
            response = {"functionResponse": {"id": ident, "name": call.name, "response": {"output": call.output}}}
            entry: dict[str, Any] = {
                "id": ident,
                "name": call.name,
                "args": call.args,
                "result": [response],
                "status": call.status,
                "timestamp": _iso(at),
                "displayName": call.display_name or _DISPLAY.get(call.name, call.name),
                "description": call.name,
            }
            entry.update(call.extra)
            written.append(entry)
            responses.append(response)
        record["toolCalls"] = written
        self.messages[record["id"]] = record
        self.append(record, at)
        return self.message({"id": self._id(), "timestamp": _iso(at), "type": "user", "content": responses}, at)

    def tool(
        self,
        name: str,
        at: datetime,
        *,
        args: dict[str, Any] | None = None,
        output_tokens: int = 21,
        finished_at: datetime | None = None,
        display_name: str | None = None,
    ) -> str:
        """One tool call that runs and finishes."""
        pending = self.wait("", at, output_tokens=output_tokens)
        return self.answer(pending, [ToolCall(name, args or {}, display_name=display_name)], finished_at or at)

    def todos(self, items: Sequence[tuple[str, str]], at: datetime) -> str:
        """``write_todos`` with ``(description, status)`` rows."""
        return self.tool("write_todos", at, args={"todos": [{"description": d, "status": s} for d, s in items]})

    def topic(self, title: str, at: datetime) -> str:
        """``update_topic``: the only place Gemini CLI 0.61 records a title."""
        return self.tool("update_topic", at, args={"title": title, "strategic_intent": "demo"})

    def rewind(self, message_id: str, at: datetime) -> None:
        """``/rewind``: drop *message_id* and everything after it."""
        kept: dict[str, dict[str, Any]] = {}
        for ident, record in self.messages.items():
            if ident == message_id:
                break
            kept[ident] = record
        self.messages = kept
        self.append({"$rewindTo": message_id}, at)

    def resume(self, at: datetime) -> None:
        """A resumed session, as Gemini CLI's ``ChatRecordingService`` writes one
        (``packages/core/src/services/chatRecordingService.ts``, google-gemini/gemini-cli at
        016443b5e7bf36fc40313db8a901f639a4426a14): ``initialize`` with the resumed session's
        data appends ``{"$set": {"sessionId": ...}}``, and the next history sync
        (``updateMessagesFromHistory``) writes the whole thread again as one ``$set.messages``
        snapshot of full message records, each gemini message keeping its ``model``."""
        self.append({"$set": {"sessionId": self.session_id}}, at)
        self.sync_history(at)

    def sync_history(self, at: datetime) -> None:
        """``updateMessagesFromHistory``: the thread as a ``$set.messages`` snapshot, with
        ``lastUpdated``."""
        self.append({"$set": {"messages": list(self.messages.values()), "lastUpdated": _iso(at)}}, at)

    def directories(self, dirs: Sequence[str], at: datetime) -> None:
        """A ``$set.directories`` patch (workspace directories added)."""
        self.append({"$set": {"directories": list(dirs)}}, at)

    # -- subagents ---------------------------------------------------------------------

    def subagent(
        self, agent_name: str, prompt: str, at: datetime, session_id: str | None = None, *, model: str = MODEL
    ) -> SubagentRun:
        """``invoke_agent`` starts: the model (*model*) asks for it (no tool call written yet) and
        the subagent's own recording starts under ``chats/<this session id>/``."""
        pending = self.wait("", at, output_tokens=38, model=model)
        child_id = session_id or str(uuid.UUID(int=zlib.crc32(prompt.encode()) << 32 | next(self._ids), version=4))
        child = GeminiChat(self.path.parent / self.session_id / f"{child_id}.jsonl", child_id, self.cwd)
        child._header(at, kind="subagent", directories=[self.cwd])
        child.prompt(prompt, at)
        return SubagentRun(parent=self, child=child, pending=pending, agent_name=agent_name, prompt=prompt)


@shared_methods
@attrs.define(repr=False, eq=False)
class SubagentRun:
    """A running ``invoke_agent`` call and the subagent's recording."""

    parent: GeminiChat
    child: GeminiChat
    pending: Pending
    agent_name: str
    prompt: str

    def complete(self, result: str, at: datetime, *, output_tokens: int = 13) -> None:
        """The subagent calls ``complete_task``; the parent's ``invoke_agent`` call is written."""
        ident = self.child.session_id
        pending = self.child.wait("", at, output_tokens=output_tokens)
        self.child.answer(
            pending,
            [
                ToolCall(
                    "complete_task", {"result": {"response": result}}, output="Output submitted and task completed."
                )
            ],
            at,
        )
        self.child.append({"$set": {"summary": json.dumps({"response": result})}}, at)
        self.parent.answer(
            self.pending,
            [
                ToolCall(
                    "invoke_agent",
                    {"agent_name": self.agent_name, "prompt": self.prompt},
                    output=f"Subagent '{self.agent_name}' finished.",
                    extra={"agentId": ident},
                )
            ],
            at,
        )
