"""Write realistic Goose session databases, for tests and for the ``cargento --demo`` simulator.

The database is the one Goose v1.10.0+ keeps at ``$XDG_DATA_HOME/goose/sessions/sessions.db``:
a ``sessions`` table as Goose's own schema (v13) creates it, plus the ``parent_session_id``
column and ``usage_ledger`` table the specification names, a ``messages`` table whose
``content_json`` holds Goose's typed parts, and WAL journalling. Every write takes an explicit
timestamp, and like Goose every message insert also bumps the session's ``updated_at``.

Example::

    store = GooseStore(home)
    lead = store.session(working_dir="/w/proj", created_at=t0, name="fix the parser")
    lead.prompt("fix the failing parser test", at=t0)
    lead.tool("developer__shell", at=t0 + timedelta(seconds=5))
    lead.tool_result(at=t0 + timedelta(seconds=9))
    lead.tokens(420, at=t0 + timedelta(seconds=9))
    helper = lead.subagent("reviewer", at=t0 + timedelta(seconds=10))
    lead.reply("Fixed.", at=t0 + timedelta(seconds=30))

Columns or tables can be left out (``omit={"sessions": {"parent_session_id"}}``,
``usage_ledger=False``) to build the older schemas the reader must survive.

Each change opens the database, writes in one transaction and closes, so a write made while a
read holds the database leaves the ``-wal`` and ``-shm`` behind. In ``cargento --demo`` these
writes run in the dashboard's own process, beside its board reader: when the reader is the first
connection of the process to map such a left-behind ``-shm`` (read-only), a write made while that
read is open is refused with ``SQLITE_READONLY``. :meth:`GooseStore.execute` tries it again until
the read has let go (:func:`cargento.demowrites.retry_refused_write`) instead of losing that
scripted moment.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cargento.demowrites import Pause, retry_refused_write

__all__ = ["GooseSession", "GooseStore", "recipe_idle", "recipe_working", "sql_time"]

SCHEMA_VERSION = 13

SESSION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "TEXT PRIMARY KEY"),
    ("name", "TEXT NOT NULL DEFAULT ''"),
    ("description", "TEXT NOT NULL DEFAULT ''"),
    ("user_set_name", "BOOLEAN DEFAULT FALSE"),
    ("session_type", "TEXT NOT NULL DEFAULT 'user'"),
    ("working_dir", "TEXT NOT NULL"),
    ("created_at", "TIMESTAMP DEFAULT CURRENT_TIMESTAMP"),
    ("updated_at", "TIMESTAMP DEFAULT CURRENT_TIMESTAMP"),
    ("extension_data", "TEXT DEFAULT '{}'"),
    ("total_tokens", "INTEGER"),
    ("input_tokens", "INTEGER"),
    ("output_tokens", "INTEGER"),
    ("accumulated_total_tokens", "INTEGER"),
    ("accumulated_input_tokens", "INTEGER"),
    ("accumulated_output_tokens", "INTEGER"),
    ("schedule_id", "TEXT"),
    ("recipe_json", "TEXT"),
    ("user_recipe_values_json", "TEXT"),
    ("provider_name", "TEXT"),
    ("model_config_json", "TEXT"),
    ("goose_mode", "TEXT NOT NULL DEFAULT 'auto'"),
    ("thread_id", "TEXT"),
    ("archived_at", "TIMESTAMP"),
    ("project_id", "TEXT"),
    ("accumulated_cost", "REAL"),
    ("parent_session_id", "TEXT"),
)
MESSAGE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "INTEGER PRIMARY KEY AUTOINCREMENT"),
    ("message_id", "TEXT"),
    ("session_id", "TEXT NOT NULL REFERENCES sessions(id)"),
    ("role", "TEXT NOT NULL"),
    ("content_json", "TEXT NOT NULL"),
    ("created_timestamp", "INTEGER NOT NULL"),
    ("timestamp", "TIMESTAMP DEFAULT CURRENT_TIMESTAMP"),
    ("tokens", "INTEGER"),
    ("metadata_json", "TEXT"),
)
LEDGER_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "INTEGER PRIMARY KEY AUTOINCREMENT"),
    ("session_id", "TEXT NOT NULL"),
    ("provider_name", "TEXT"),
    ("model_name", "TEXT"),
    ("input_tokens", "INTEGER"),
    ("output_tokens", "INTEGER"),
    ("created_timestamp", "INTEGER NOT NULL"),
)


def sql_time(at: datetime) -> str:
    """Goose's ``CURRENT_TIMESTAMP`` spelling: ``YYYY-MM-DD HH:MM:SS`` in UTC."""
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _create(table: str, columns: Iterable[tuple[str, str]], omit: Iterable[str]) -> str:
    skip = set(omit)
    body = ",\n    ".join(f"{name} {decl}" for name, decl in columns if name not in skip)
    return f"CREATE TABLE {table} (\n    {body}\n)"


class GooseStore:
    """One Goose ``sessions.db`` below *home* (or below *data_home*, an ``XDG_DATA_HOME``)."""

    def __init__(
        self,
        home: Path,
        *,
        data_home: Path | None = None,
        wal: bool = True,
        usage_ledger: bool = True,
        omit: Mapping[str, Iterable[str]] | None = None,
        database: Path | None = None,
    ) -> None:
        base = data_home if data_home is not None else home / ".local" / "share"
        #: The database file (*database* when given, e.g. the Windows data folder).
        self.path = database if database is not None else base / "goose" / "sessions" / "sessions.db"
        self.omit = {k: frozenset(v) for k, v in (omit or {}).items()}
        self._counters: dict[str, int] = {}
        self._messages = 0
        #: How a refused write waits before its next try (a test can end the read there).
        self.pause: Pause = time.sleep
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            # A new file: no reader of this process can have mapped its WAL index yet.
            self._create(wal=wal, usage_ledger=usage_ledger)

    def columns(self, table: str) -> tuple[str, ...]:
        """The columns this store's *table* was created with."""
        spec = {"sessions": SESSION_COLUMNS, "messages": MESSAGE_COLUMNS, "usage_ledger": LEDGER_COLUMNS}[table]
        return tuple(name for name, _ in spec if name not in self.omit.get(table, frozenset()))

    def _create(self, *, wal: bool, usage_ledger: bool) -> None:
        with closing(sqlite3.connect(self.path)) as conn:
            if wal:
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)"
            )
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            conn.execute(_create("sessions", SESSION_COLUMNS, self.omit.get("sessions", ())))
            conn.execute(_create("messages", MESSAGE_COLUMNS, self.omit.get("messages", ())))
            conn.execute("CREATE INDEX idx_messages_session ON messages(session_id)")
            conn.execute("CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)")
            if usage_ledger:
                conn.execute(_create("usage_ledger", LEDGER_COLUMNS, self.omit.get("usage_ledger", ())))
            conn.commit()

    def execute(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        """Run *statements* in one write transaction, as Goose does for each change.

        A transaction refused because another connection of this process holds the WAL index
        read-only is run again on a fresh connection (the refused one rolled back, writing
        nothing), up to :data:`cargento.demowrites.READONLY_TRIES` times.
        """
        batch = list(statements)
        retry_refused_write(lambda: self._transaction(batch), pause=self.pause)

    def _transaction(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """One try of :meth:`execute`: open, run, commit (or roll back on any error) and close."""
        with closing(sqlite3.connect(self.path)) as conn, conn:
            for sql, params in statements:
                conn.execute(sql, params)

    def _insert(self, table: str, values: Mapping[str, Any]) -> tuple[str, tuple[Any, ...]]:
        present = set(self.columns(table))
        keys = [k for k in values if k in present]
        sql = f"INSERT INTO {table} ({', '.join(keys)}) VALUES ({', '.join('?' for _ in keys)})"
        return sql, tuple(values[k] for k in keys)

    def _next_id(self, at: datetime) -> str:
        day = at.astimezone(UTC).strftime("%Y%m%d")
        self._counters[day] = self._counters.get(day, 0) + 1
        return f"{day}_{self._counters[day]}"

    def session(
        self,
        *,
        working_dir: str,
        created_at: datetime,
        name: str = "",
        session_type: str = "user",
        parent: GooseSession | str | None = None,
        session_id: str | None = None,
        description: str = "",
        model: str | None = "goose-demo-model",
    ) -> GooseSession:
        """Create a session row; a subagent names its *parent* and has type ``subagent``."""
        sid = session_id or self._next_id(created_at)
        parent_id = parent.id if isinstance(parent, GooseSession) else parent
        stamp = sql_time(created_at)
        self.execute(
            [
                self._insert(
                    "sessions",
                    {
                        "id": sid,
                        "name": name,
                        "description": description,
                        "session_type": session_type,
                        "working_dir": working_dir,
                        "created_at": stamp,
                        "updated_at": stamp,
                        "extension_data": "{}",
                        "provider_name": "demo",
                        "model_config_json": json.dumps({"model_name": model}) if model else None,
                        "parent_session_id": parent_id,
                    },
                )
            ]
        )
        return GooseSession(self, sid, working_dir)

    def add_message(
        self, sid: str, role: str, parts: list[dict[str, Any]], at: datetime, *, visible: bool = True
    ) -> None:
        """Insert one message and bump the session's ``updated_at``, in one transaction."""
        self._messages += 1
        message = self._insert(
            "messages",
            {
                "message_id": f"msg_{sid}_{self._messages}",
                "session_id": sid,
                "role": role,
                "content_json": json.dumps(parts),
                "created_timestamp": int(at.timestamp()),
                "timestamp": sql_time(at),
                "metadata_json": json.dumps({"userVisible": visible, "agentVisible": True}),
            },
        )
        self.execute([message, ("UPDATE sessions SET updated_at = ? WHERE id = ?", (sql_time(at), sid))])

    def remove(self, session_id: str) -> None:
        """Delete a session with its messages and usage rows, as ``goose session remove`` does."""
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("DELETE FROM messages WHERE session_id = ?", (session_id,)),
            ("DELETE FROM sessions WHERE id = ?", (session_id,)),
        ]
        with closing(sqlite3.connect(self.path)) as conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'usage_ledger'").fetchone():
                statements.insert(1, ("DELETE FROM usage_ledger WHERE session_id = ?", (session_id,)))
        self.execute(statements)


class GooseSession:
    """Appends records to one session of a :class:`GooseStore`."""

    def __init__(self, store: GooseStore, session_id: str, working_dir: str) -> None:
        self.store = store
        self.id = session_id
        self.working_dir = working_dir
        self._calls = 0

    def prompt(self, text: str, at: datetime) -> GooseSession:
        """A prompt typed by the human (role ``user``, a text part)."""
        self.store.add_message(self.id, "user", [{"type": "text", "text": text}], at)
        return self

    def tool(self, name: str, at: datetime, arguments: Mapping[str, Any] | None = None) -> str:
        """An assistant message requesting one tool; returns the call id."""
        self._calls += 1
        call = f"call_{self.id}_{self._calls}"
        part = {
            "type": "toolRequest",
            "id": call,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": dict(arguments or {})}},
        }
        self.store.add_message(self.id, "assistant", [part], at)
        return call

    def tool_result(self, at: datetime, text: str = "ok", call_id: str | None = None) -> GooseSession:
        """The tool's result, which Goose writes with role ``user`` (never a prompt)."""
        part = {
            "type": "toolResponse",
            "id": call_id or f"call_{self.id}_{self._calls}",
            "toolResult": {
                "status": "success",
                "value": {"content": [{"type": "text", "text": text}], "isError": False},
            },
        }
        self.store.add_message(self.id, "user", [part], at)
        return self

    def reply(self, text: str, at: datetime) -> GooseSession:
        """An assistant text reply with no tool request: Goose's final message of a turn."""
        self.store.add_message(self.id, "assistant", [{"type": "text", "text": text}], at)
        return self

    def end_turn(self, at: datetime, text: str = "Done.") -> GooseSession:
        """Close the turn the way Goose does: a final reply."""
        return self.reply(text, at)

    def tokens(self, output: int, at: datetime, *, input_tokens: int = 0) -> GooseSession:
        """One model response's usage: a ``usage_ledger`` row and the session's running totals."""
        statements = [
            (
                "UPDATE sessions SET accumulated_output_tokens = COALESCE(accumulated_output_tokens, 0) + ?, "
                "output_tokens = ? WHERE id = ?",
                (output, output, self.id),
            )
        ]
        if self._has_ledger():
            statements.append(
                self.store._insert(
                    "usage_ledger",
                    {
                        "session_id": self.id,
                        "provider_name": "demo",
                        "model_name": "goose-demo-model",
                        "input_tokens": input_tokens,
                        "output_tokens": output,
                        "created_timestamp": int(at.timestamp()),
                    },
                )
            )
        self.store.execute(statements)
        return self

    def _has_ledger(self) -> bool:
        with closing(sqlite3.connect(self.store.path)) as conn:
            return bool(conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'usage_ledger'").fetchone())

    def subagent(self, name: str, at: datetime, *, session_type: str = "subagent") -> GooseSession:
        """A subagent session whose ``parent_session_id`` names this one."""
        return self.store.session(
            working_dir=self.working_dir, created_at=at, name=name, session_type=session_type, parent=self
        )

    def archive(self, at: datetime) -> GooseSession:
        """Archive the session (Goose bumps ``updated_at`` when it archives)."""
        stamp = sql_time(at)
        self.store.execute(
            [("UPDATE sessions SET archived_at = ?, updated_at = ? WHERE id = ?", (stamp, stamp, self.id))]
        )
        return self


def recipe_working(home: Path, now: datetime, **store_kw: Any) -> tuple[GooseStore, GooseSession, GooseSession]:
    """A working lead (last write 10 s before *now*) with one running subagent and ledger rows,
    beside an archived session and one of each infrastructure type that are never shown."""
    store = GooseStore(home, **store_kw)

    def ago(seconds: float) -> datetime:
        return now - timedelta(seconds=seconds)

    lead = store.session(working_dir="/w/proj", created_at=ago(300), name="fix the parser")
    lead.prompt("fix the failing parser test", at=ago(290))
    lead.tool("developer__shell", at=ago(280), arguments={"command": "pytest -x"})
    lead.tool_result(at=ago(270), text="1 failed")
    lead.tokens(400, at=ago(270))
    child = lead.subagent("reviewer", at=ago(60))
    child.prompt("review the parser change", at=ago(60))
    child.tokens(100, at=ago(20))
    child.tool("developer__text_editor", at=ago(15))
    lead.tokens(200, at=ago(10))
    lead.tool("developer__text_editor", at=ago(10))
    gone = store.session(working_dir="/w/old", created_at=ago(3000), name="archived one")
    gone.prompt("old work", at=ago(3000))
    gone.archive(at=ago(5))
    for kind in ("hidden", "terminal", "gateway", "acp"):
        infra = store.session(working_dir="/w/infra", created_at=ago(30), name=f"{kind} session", session_type=kind)
        infra.prompt("infrastructure", at=ago(30))
    return store, lead, child


def recipe_idle(home: Path, now: datetime, **store_kw: Any) -> tuple[GooseStore, GooseSession]:
    """One finished session last written two hours before *now*."""
    store = GooseStore(home, **store_kw)
    start = now - timedelta(seconds=7300)
    lead = store.session(working_dir="/w/proj", created_at=start, name="old task")
    lead.prompt("do the old task", at=start)
    lead.tokens(50, at=start + timedelta(seconds=50))
    lead.reply("done", at=start + timedelta(seconds=100))
    return store, lead
