"""Writing realistic GitHub Copilot CLI stores: for tests and for the ``cargento --demo`` simulator.

The shapes follow what Copilot CLI 1.0.102 wrote (``testdata/golden/copilot-1.0.102``):
``session-state/<id>/events.jsonl`` of typed events chained by ``parentId``, a
``workspace.yaml``, a per-session ``session.db`` with the ``todos`` table, and the global
``session-store.db`` ledger. Every method takes an explicit time and appends; nothing reads
a clock. Example::

    store = CopilotStore(home)
    s = store.session(cwd="/w/proj", at=t0)
    s.prompt("fix the login bug", at=t0 + 1)
    call = s.tool("bash", at=t0 + 3)
    request = s.wait(at=t0 + 3.1, kind="shell")   # a permission dialog is open
    s.answer(request, at=t0 + 20)
    s.tool_done(call, at=t0 + 21)
    s.tokens(40, at=t0 + 22)
    s.end_turn(at=t0 + 22)

This module has no test dependencies and writes only below the home it is given.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["CopilotSession", "CopilotStore", "Moment"]

Moment = datetime | float
_LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, cwd TEXT, repository TEXT, host_type TEXT, branch TEXT, summary TEXT,
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now')));
CREATE TABLE IF NOT EXISTS assistant_usage_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    turn_index INTEGER, agent_id TEXT, parent_tool_call_id TEXT, model TEXT NOT NULL,
    copilot_usage_model TEXT, input_tokens INTEGER, output_tokens INTEGER, cache_read_tokens INTEGER,
    cache_write_tokens INTEGER, reasoning_tokens INTEGER, total_nano_aiu INTEGER,
    request_multiplier REAL, duration_ms INTEGER, time_to_first_token_ms INTEGER,
    output_ttft_ms REAL, inter_token_latency_ms INTEGER, initiator TEXT, api_endpoint TEXT,
    reasoning_effort TEXT, finish_reason TEXT, content_filter_triggered INTEGER,
    token_details_json TEXT, created_at TEXT DEFAULT (datetime('now')));
CREATE INDEX IF NOT EXISTS idx_assistant_usage_events_session ON assistant_usage_events(session_id, id);
"""
_TODO_SCHEMA = """
CREATE TABLE IF NOT EXISTS todos (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, description TEXT,
    status TEXT DEFAULT 'pending' CHECK(status IN ('pending', 'in_progress', 'done', 'blocked')),
    created_at TEXT DEFAULT (datetime('now')), updated_at TEXT DEFAULT (datetime('now')));
CREATE TABLE IF NOT EXISTS todo_deps (
    todo_id TEXT NOT NULL, depends_on TEXT NOT NULL, PRIMARY KEY (todo_id, depends_on),
    FOREIGN KEY (todo_id) REFERENCES todos(id), FOREIGN KEY (depends_on) REFERENCES todos(id));
"""


def _moment(at: Moment) -> datetime:
    if isinstance(at, datetime):
        return at if at.tzinfo else at.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(at), UTC)


def _iso(at: Moment) -> str:
    return _moment(at).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_moment(at).microsecond // 1000:03d}Z"


def _sql_time(at: Moment) -> str:
    return _moment(at).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _touch(path: Path, at: Moment) -> None:
    stamp = _moment(at).timestamp()
    os.utime(path, (stamp, stamp))


class CopilotStore:
    """A Copilot CLI home: ``<home>/.copilot`` (or the given ``COPILOT_HOME`` root)."""

    def __init__(self, home: Path, *, root: Path | None = None) -> None:
        self.home = Path(home)
        self.root = Path(root) if root is not None else self.home / ".copilot"

    def session(
        self,
        session_id: str | None = None,
        *,
        cwd: str,
        at: Moment,
        model: str = "claude-sonnet-4.5",
        version: str = "1.0.102",
        legacy: bool = False,
        name: str | None = None,
        user_named: bool = False,
    ) -> CopilotSession:
        """Start a session: its directory, ``workspace.yaml`` and the ``session.start`` event."""
        sid = session_id or str(uuid.uuid4())
        folder = self.root / ("history-session-state" if legacy else "session-state") / sid
        folder.mkdir(parents=True, exist_ok=True)
        session = CopilotSession(self, sid, folder)
        session.write_workspace(cwd=cwd, at=at, name=name, user_named=user_named)
        session.emit(
            "session.start",
            {
                "sessionId": sid,
                "version": 1,
                "producer": "copilot-agent",
                "copilotVersion": version,
                "startTime": _iso(at),
                "selectedModel": model,
                "contextTier": None,
                "context": {"cwd": cwd},
                "alreadyInUse": False,
            },
            at,
        )
        return session

    def ledger_row(
        self,
        session_id: str,
        *,
        at: Moment,
        model: str = "claude-sonnet-4.5",
        output_tokens: int = 0,
        nano_aiu: int | None = None,
        agent_id: str | None = None,
        cwd: str | None = None,
    ) -> None:
        """Append one API response to the global ``session-store.db`` ledger (WAL mode)."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / "session-store.db"
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_LEDGER_SCHEMA)
            conn.execute(
                "INSERT OR IGNORE INTO sessions (id, cwd, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (session_id, cwd, _iso(at), _iso(at)),
            )
            conn.execute(
                "INSERT INTO assistant_usage_events (session_id, turn_index, agent_id, model, input_tokens, "
                "output_tokens, total_nano_aiu, initiator, api_endpoint, created_at) VALUES (?, 0, ?, ?, 100, ?, ?, "
                "'user', '/v1/messages', ?)",
                (session_id, agent_id, model, output_tokens, nano_aiu, _iso(at)),
            )
            conn.commit()
        finally:
            conn.close()
        _touch(path, at)


class CopilotSession:
    """One session directory; every method appends what the CLI appends at that moment."""

    def __init__(self, store: CopilotStore, session_id: str, folder: Path) -> None:
        self.store = store
        self.session_id = session_id
        self.folder = folder
        self.events = folder / "events.jsonl"
        self._last_id: str | None = None
        self._turn = 0
        self._calls = 0

    # -- low level --------------------------------------------------------------------------

    def emit(self, kind: str, data: dict[str, Any], at: Moment, *, agent_id: str | None = None) -> str:
        """Append one raw event; returns its id."""
        ident = str(uuid.uuid4())
        record: dict[str, Any] = {"type": kind, "data": data}
        if agent_id is not None:
            record["agentId"] = agent_id
        record.update({"id": ident, "timestamp": _iso(at), "parentId": self._last_id})
        with open(self.events, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self._last_id = ident
        _touch(self.events, at)
        return ident

    def write_workspace(self, *, cwd: str, at: Moment, name: str | None = None, user_named: bool = False) -> None:
        """(Re)write ``workspace.yaml`` as the CLI does when the session is named."""
        quoted = "'" + (name or "").replace("'", "''") + "'"
        lines = [f"id: {self.session_id}", f"cwd: {cwd}", "client_name: github/cli"]
        if name is not None:
            lines.append(f"name: {quoted}")
        lines += [
            f"user_named: {'true' if user_named else 'false'}",
            "summary_count: 0",
            "fork_count: 0",
            f"created_at: {_iso(at)}",
            f"updated_at: {_iso(at)}",
        ]
        path = self.folder / "workspace.yaml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _touch(path, at)

    # -- what a session does ----------------------------------------------------------------

    def prompt(self, text: str, at: Moment, *, turn_start: bool = True) -> None:
        """The user types a prompt: ``user.message`` and, by default, ``assistant.turn_start``."""
        self.emit(
            "user.message",
            {
                "content": text,
                "transformedContent": text,
                "messageId": str(uuid.uuid4()),
                "delivery": "idle",
                "interactionId": str(uuid.uuid4()),
            },
            at,
        )
        if turn_start:
            self.turn_start(at)

    def turn_start(self, at: Moment) -> None:
        """The model starts a turn (one API round trip)."""
        self.emit("assistant.turn_start", {"turnId": str(self._turn)}, at)

    def tokens(self, n: int, at: Moment, *, model: str = "claude-sonnet-4.5", agent_id: str | None = None) -> None:
        """One API response's usage: a ``session.usage_record`` with ``outputTokens``."""
        self.emit(
            "session.usage_record",
            {"usage": {"model": model, "modelDisplayName": model, "inputTokens": 100, "outputTokens": n, "cost": 0.0}},
            at,
            agent_id=agent_id,
        )

    def message(self, text: str, at: Moment, *, model: str = "claude-sonnet-4.5", agent_id: str | None = None) -> None:
        """An assistant message."""
        self.emit(
            "assistant.message",
            {
                "messageId": str(uuid.uuid4()),
                "model": model,
                "content": text,
                "toolRequests": [],
                "turnId": str(self._turn),
            },
            at,
            agent_id=agent_id,
        )

    def tool(
        self, name: str, at: Moment, *, arguments: dict[str, Any] | None = None, agent_id: str | None = None
    ) -> str:
        """A tool call starts; returns its ``toolCallId``."""
        self._calls += 1
        call = f"toolu_{self._calls:06d}"
        self.emit(
            "tool.execution_start",
            {"toolCallId": call, "toolName": name, "arguments": arguments or {}, "turnId": str(self._turn)},
            at,
            agent_id=agent_id,
        )
        return call

    def tool_done(self, call: str, at: Moment, *, success: bool = True, agent_id: str | None = None) -> None:
        """A tool call completes."""
        self.emit(
            "tool.execution_complete",
            {"toolCallId": call, "success": success, "turnId": str(self._turn), "result": {"content": ""}},
            at,
            agent_id=agent_id,
        )

    def end_turn(self, at: Moment) -> None:
        """The model ends its turn (``assistant.turn_end``); a later turn_start reopens it."""
        self.emit("assistant.turn_end", {"turnId": str(self._turn)}, at)
        self._turn += 1

    def task_complete(self, at: Moment) -> None:
        """``session.task_complete``."""
        self.emit("session.task_complete", {}, at)

    def shutdown(self, at: Moment) -> None:
        """The process exits cleanly: ``session.shutdown``."""
        self.emit("session.shutdown", {"accountingSnapshot": {"totalNanoAiu": 0.0}}, at)

    def wait(self, at: Moment, *, kind: str = "shell", call: str | None = None, detail: str = "echo hi") -> str:
        """A permission dialog opens (``permission.requested``); returns its ``requestId``.

        *detail* is written where the CLI writes the command or URL, so tests can prove it
        never reaches the board.
        """
        request = str(uuid.uuid4())
        body: dict[str, Any] = {"kind": kind, "toolCallId": call or ""}
        if kind == "url":
            body["url"] = detail
        else:
            body["fullCommandText"] = detail
            body["intention"] = f"intention: {detail}"
        self.emit(
            "permission.requested",
            {"requestId": request, "permissionRequest": body, "ownerSessionId": self.session_id},
            at,
        )
        return request

    def answer(self, request: str, at: Moment, *, approved: bool = True) -> None:
        """The human answers the dialog (``permission.completed``)."""
        self.emit(
            "permission.completed",
            {"requestId": request, "result": {"kind": "approved" if approved else "denied-interactively-by-user"}},
            at,
        )

    def subagent_start(
        self,
        name: str,
        at: Moment,
        *,
        agent_type: str = "general-purpose",
        model: str = "claude-sonnet-4.5",
        description: str = "",
    ) -> str:
        """A subagent starts (``subagent.started`` keyed on a new ``agentId``); returns the id."""
        agent = str(uuid.uuid4())
        call = self.tool("task", at, arguments={"name": name, "agent_type": agent_type, "description": description})
        self.emit(
            "subagent.started",
            {
                "toolCallId": call,
                "agentName": agent_type,
                "agentDisplayName": name,
                "agentDescription": description,
                "model": model,
                "agentType": agent_type,
            },
            at,
            agent_id=agent,
        )
        return agent

    def subagent_finish(self, agent: str, at: Moment, *, failed: bool = False) -> None:
        """The subagent completes or fails (same ``agentId``, a different event id)."""
        self.emit("subagent.failed" if failed else "subagent.completed", {"totalToolCalls": 0}, at, agent_id=agent)

    def title(self, text: str, at: Moment) -> None:
        """``session.title_changed``."""
        self.emit("session.title_changed", {"title": text}, at)

    def todos(self, rows: Iterable[tuple[str, str, str]], at: Moment) -> None:
        """Write the ``todos`` table of ``session.db`` (``(id, title, status)`` rows, upserted)."""
        path = self.folder / "session.db"
        conn = sqlite3.connect(path)
        try:
            conn.executescript(_TODO_SCHEMA)
            for ident, title, status in rows:
                conn.execute(
                    "INSERT INTO todos (id, title, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET title = excluded.title, status = excluded.status, "
                    "updated_at = excluded.updated_at",
                    (ident, title, status, _sql_time(at), _sql_time(at)),
                )
            conn.commit()
        finally:
            conn.close()
        _touch(path, at)
