"""Write realistic Cursor CLI chat stores, for tests and for the ``cargento --demo`` simulator.

One chat is ``~/.cursor/chats/<md5(workspace)>/<agent-id>/store.db`` in WAL mode with two tables:
``meta(key, value)`` whose row ``0`` is the hex-encoded JSON chat payload, and the append-only,
content-addressed ``blobs(id, data)`` where ``id`` is the sha256 of ``data``. Every change appends
the new message blobs and then a new root blob, and points ``latestRootBlobId`` at it. The root
stands in for Cursor's protobuf conversation state: field 1 repeats the 32-byte message ids
(``0a 20 <id>``), and field 2 carries each pending tool-call message as JSON, whose
``providerOptions.cursor`` holds ``pendingToolExecutionContracts`` and
``pendingToolCallStartedAtMs`` while a gate stands. Answering appends a root with the map
emptied (the stamp stays, as measured). A parent chat has a ``meta.json`` beside its store with
``cwd``; a subagent's store has none and names its parent in ``subagentInfo``.

Each write stamps the store file's mtime with its explicit timestamp, since Cursor's activity is
read from the store's file times. Example::

    chat = CursorChat(home, workspace="/w/proj", name="fix the parser", created_at=t0)
    chat.user("fix the parser", at=t0)
    call = chat.wait("Shell", at=t0 + timedelta(seconds=5))      # a permission prompt opens
    chat.answer(at=t0 + timedelta(seconds=40))                    # the human answers it
    chat.tool_result(call, at=t0 + timedelta(seconds=41))
    chat.assistant("Done.", at=t0 + timedelta(seconds=50), model="vega")
    child = chat.subagent("explore", at=t0 + timedelta(seconds=20))

Each change opens the store, writes in one transaction and closes, so a write made while a read
holds the store leaves the ``-wal`` and ``-shm`` behind. In ``cargento --demo`` these writes run
in the dashboard's own process, beside its board reader: when the reader is the first connection
of the process to map such a left-behind ``-shm`` (read-only), a write made while that read is
open is refused with ``SQLITE_READONLY``. Each change is tried again until the read has let go
(:func:`cargento.demowrites.retry_refused_write`) instead of losing that scripted moment.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import time
import uuid
from collections.abc import Mapping
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.demowrites import Pause, retry_refused_write

__all__ = ["CursorChat", "frame", "recipe_gate", "recipe_working", "workspace_hash"]

DEFAULT_MODEL = "vega"


def workspace_hash(workspace: str) -> str:
    """The chats sub-directory of a workspace: the MD5 of its path."""
    return hashlib.md5(workspace.encode("utf-8")).hexdigest()


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def frame(field: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field."""
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


class CursorChat:
    """One Cursor chat store (a parent chat, or a subagent's own store)."""

    def __init__(
        self,
        home: Path,
        *,
        created_at: datetime,
        workspace: str | None = None,
        name: str = "New Agent",
        agent_id: str | None = None,
        workspace_dir: str | None = None,
        subagent_of: CursorChat | str | None = None,
        type_name: str | None = None,
        meta_json: bool = True,
        hex_meta: bool = True,
        blobs_table: bool = True,
        chats: Path | None = None,
        pause: Pause = time.sleep,
    ) -> None:
        self.id = agent_id or str(uuid.uuid4())
        self.workspace = workspace
        bucket = workspace_dir or workspace_hash(workspace or "")
        #: The ``chats`` folder (``~/.cursor/chats`` unless given).
        self.chats = chats if chats is not None else home / ".cursor" / "chats"
        self.dir = self.chats / bucket / self.id
        self.path = self.dir / "store.db"
        self.hex_meta = hex_meta
        self.blobs_table = blobs_table
        self.messages: list[str] = []
        self.pending: list[bytes] = []
        self._calls = 0
        #: How a refused write waits before its next try (a test can end the read there); a
        #: subagent's store waits the way its parent's does.
        self.pause = pause
        parent = subagent_of.id if isinstance(subagent_of, CursorChat) else subagent_of
        self.payload: dict[str, Any] = {
            "agentId": self.id,
            "latestRootBlobId": "",
            "name": name,
            "mode": "default",
            "createdAt": _ms(created_at),
            "lastUsedModel": DEFAULT_MODEL,
            "blobEncryptionKey": secrets.token_hex(32),
        }
        if parent is not None:
            self.payload["subagentInfo"] = {
                "rootParentAgentId": parent,
                "parentAgentId": parent,
                "typeName": type_name or "general",
            }
        self.dir.mkdir(parents=True, exist_ok=True)
        # A new file: no reader of this process can have mapped its WAL index yet.
        with closing(sqlite3.connect(self.path)) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            if blobs_table:
                conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
            conn.commit()
        if meta_json and parent is None and workspace is not None:
            (self.dir / "meta.json").write_text(json.dumps({"cwd": workspace, "createdAtMs": _ms(created_at)}))
        self._commit([], created_at)

    # -- writing ------------------------------------------------------------------------

    def _root(self) -> bytes:
        body = b"".join(frame(1, bytes.fromhex(i)) for i in self.messages)
        body += b"".join(frame(2, p) for p in self.pending)
        return body + frame(3, b"\x08\x01")

    def _commit(self, new_blobs: list[bytes], at: datetime) -> None:
        """Append *new_blobs* and a new root in one transaction, then stamp the file times.

        A transaction refused because another connection of this process holds the WAL index
        read-only is run again on a fresh connection (the refused one rolled back, writing
        nothing), up to :data:`cargento.demowrites.READONLY_TRIES` times.
        """
        retry_refused_write(lambda: self._transaction(new_blobs), pause=self.pause)
        self.touch(at)

    def _transaction(self, new_blobs: list[bytes]) -> None:
        """One try of :meth:`_commit`: open, write, commit (or roll back on any error) and close."""
        with closing(sqlite3.connect(self.path)) as conn, conn:
            if self.blobs_table:
                for data in new_blobs:
                    blob_id = hashlib.sha256(data).hexdigest()
                    conn.execute("INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)", (blob_id, data))
                root = self._root()
                root_id = hashlib.sha256(root).hexdigest()
                conn.execute("INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)", (root_id, root))
                self.payload["latestRootBlobId"] = root_id
            text = json.dumps(self.payload, separators=(",", ":"))
            value = text.encode().hex() if self.hex_meta else text
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('0', ?)", (value,))

    def touch(self, at: datetime) -> None:
        """Stamp the store's file times with *at* (the moment of the last write)."""
        os.utime(self.path, (at.timestamp(), at.timestamp()))

    def add(self, message: Mapping[str, Any], at: datetime) -> str:
        """Append one message blob (JSON) and a new root listing it; returns its id."""
        data = json.dumps(message, separators=(",", ":")).encode()
        blob_id = hashlib.sha256(data).hexdigest()
        self.messages.append(blob_id)
        self._commit([data], at)
        return blob_id

    def user(self, text: str, at: datetime) -> CursorChat:
        """A prompt typed by the human."""
        self.add({"role": "user", "id": str(uuid.uuid4()), "content": [{"type": "text", "text": text}]}, at)
        return self

    def assistant(self, text: str, at: datetime, *, model: str | None = DEFAULT_MODEL) -> CursorChat:
        """An assistant reply; *model* is recorded as ``providerOptions.cursor.modelName``."""
        message: dict[str, Any] = {"role": "assistant", "id": "1", "content": [{"type": "text", "text": text}]}
        if model is not None:
            message["providerOptions"] = {"cursor": {"modelName": model}}
        self.add(message, at)
        return self

    def reasoned(self, text: str, at: datetime, *, model: str, request_id: str = "req-1") -> CursorChat:
        """An assistant reply in the shape recorded from real cursor-agent stores
        (yashas-salankimatt/sidecar ``docs/plans/cursor-cli-adapter.md`` at 4b23057): the model
        only on the content blocks (a ``reasoning`` block's
        ``providerOptions.cursor.modelName``), the message itself carrying no model."""
        block = {"providerOptions": {"cursor": {"modelName": model}}}
        message: dict[str, Any] = {
            "id": "1",
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "Let me look.", **block, "signature": "sig"},
                {"type": "text", "text": text},
            ],
        }
        if request_id:
            message["providerOptions"] = {"cursor": {"requestId": request_id}}
        self.add(message, at)
        return self

    def _call(self, tool: str, args: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
        self._calls += 1
        call = f"call_{self.id[:8]}_{self._calls}"
        return call, {"type": "tool-call", "toolCallId": call, "toolName": tool, "args": dict(args or {})}

    def tool_call(
        self, tool: str, at: datetime, *, model: str | None = DEFAULT_MODEL, args: Mapping[str, Any] | None = None
    ) -> str:
        """An assistant tool call that runs without asking; returns the call id."""
        call, part = self._call(tool, args)
        message: dict[str, Any] = {"role": "assistant", "id": "1", "content": [part]}
        if model is not None:
            message["providerOptions"] = {"cursor": {"modelName": model}}
        self.add(message, at)
        return call

    def tool_result(self, call_id: str, at: datetime, text: str = "ok") -> CursorChat:
        """The tool's result; any pending call is settled."""
        self.pending = []
        self.add(
            {
                "role": "tool",
                "id": call_id,
                "content": [{"type": "tool-result", "toolCallId": call_id, "toolName": "tool", "result": text}],
            },
            at,
        )
        return self

    def wait(
        self, tool: str, at: datetime, *, model: str | None = DEFAULT_MODEL, args: Mapping[str, Any] | None = None
    ) -> str:
        """A tool call held at a permission prompt from *at*: the new root carries the pending
        message with a non-empty contracts map and ``pendingToolCallStartedAtMs``."""
        call, part = self._call(tool, args)
        cursor: dict[str, Any] = {
            "modelProviderMessageId": f"msg-{self._calls}",
            "pendingToolCallStartedAtMs": _ms(at),
            "pendingToolExecutionContracts": {
                call: {
                    "toolCallId": call,
                    "outerToolName": tool,
                    "toolIdentifier": tool.upper(),
                    "isDynamic": False,
                    "allowedToolNames": [tool],
                },
            },
        }
        if model is not None:
            cursor["modelName"] = model
        message = {"role": "assistant", "id": "1", "content": [part], "providerOptions": {"cursor": cursor}}
        self.pending = [json.dumps(message, separators=(",", ":")).encode()]
        self._commit([], at)
        return call

    def answer(self, at: datetime) -> CursorChat:
        """The human answers (either way): a root whose pending message has the map emptied."""
        emptied = []
        for raw in self.pending:
            message = json.loads(raw)
            message["providerOptions"]["cursor"]["pendingToolExecutionContracts"] = {}
            emptied.append(json.dumps(message, separators=(",", ":")).encode())
        self.pending = emptied
        self._commit([], at)
        return self

    def rename(self, name: str, at: datetime) -> CursorChat:
        """Cursor names the chat after its first exchange."""
        self.payload["name"] = name
        self._commit([], at)
        return self

    def subagent(self, type_name: str, at: datetime, *, agent_id: str | None = None) -> CursorChat:
        """A subagent: its own store under the same workspace hash, no ``meta.json``,
        named ``New Agent`` and pointing at this chat in ``subagentInfo``."""
        return CursorChat(
            self.chats.parent.parent,
            created_at=at,
            workspace=self.workspace,
            workspace_dir=self.dir.parent.name,
            subagent_of=self,
            type_name=type_name,
            agent_id=agent_id,
            chats=self.chats,
            pause=self.pause,
        )


def recipe_working(home: Path, now: datetime, workspace: Path) -> tuple[CursorChat, CursorChat]:
    """A working chat (last write 10 s before *now*) in an existing *workspace*, with one
    running subagent that has its own model."""
    workspace.mkdir(parents=True, exist_ok=True)
    t0 = now - timedelta(seconds=120)
    chat = CursorChat(home, workspace=str(workspace), created_at=t0)
    chat.user("refactor the parser", at=t0)
    chat.rename("Refactor the parser", at=t0 + timedelta(seconds=2))
    call = chat.tool_call("Read", at=t0 + timedelta(seconds=20), model="vega")
    chat.tool_result(call, at=t0 + timedelta(seconds=21))
    child = chat.subagent("explore", at=now - timedelta(seconds=40))
    child.user("find the parser entry points", at=now - timedelta(seconds=40))
    child.assistant("Looking.", at=now - timedelta(seconds=5), model="vega-mini")
    chat.assistant("Working on it.", at=now - timedelta(seconds=10), model="vega")
    return chat, child


def recipe_gate(home: Path, now: datetime, workspace: Path) -> CursorChat:
    """A chat standing at a shell permission prompt opened 30 s before *now*."""
    workspace.mkdir(parents=True, exist_ok=True)
    t0 = now - timedelta(seconds=90)
    chat = CursorChat(home, workspace=str(workspace), name="Run the migration", created_at=t0)
    chat.user("run the migration", at=t0)
    chat.assistant("I will run it.", at=t0 + timedelta(seconds=30))
    chat.wait("Shell", at=now - timedelta(seconds=30), args={"command": "make migrate"})
    return chat
