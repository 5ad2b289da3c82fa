"""Write Antigravity CLI stores, for tests and for the ``cargento --demo`` simulator.

Importable without any test dependency. No real Antigravity store has been recorded yet, so the
shapes follow ``formats.md`` section 5 exactly: one SQLite database per conversation under
``conversations/`` with ``steps(idx, step_type, status, metadata)``,
``trajectory_metadata_blob(id, data)`` and ``gen_metadata(idx, data)``, their metadata as
protobuf (written by the small encoder here), ``cache/last_conversations.json`` and glog-style
``log/cli-*.log`` lines. Every write takes an explicit timestamp and stamps mtimes with it::

    from cargento_harness_antigravity.fixtures import AntigravityStore

    store = AntigravityStore(home)
    conv = store.conversation("4c1d...", workspace="/w/proj", at=t0, wal_held=True)
    conv.prompt("show open issues", at=t0)
    conv.tool("Ran gh issue list", "gh issue list", at=t1)
    conv.respond(at=t2, output_tokens=120)
    child = store.conversation("7e2a...", at=t2, parent=conv, role="Research Auditor", kind="research")

A ``wal_held`` conversation keeps its newest transaction in the ``-wal`` file (written by a
writer in WAL mode with auto-checkpoints off, copied with its ``-wal`` and ``-shm`` while the
writer is open), which is how a live CLI leaves it.

A ``live`` conversation (:class:`LiveConversation`, used by the demo) is written in place the
way a running CLI writes it: one connection kept open in WAL mode, each write its own
transaction appended to the ``-wal`` (SQLite's default auto-checkpoint folds it back now and
then), no scratch copy anywhere else; :meth:`LiveConversation.close` ends it as an exiting CLI
does (the last connection checkpoints and removes the ``-wal``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from datetime import UTC, datetime
from pathlib import Path

__all__ = [
    "MODEL",
    "AntigravityStore",
    "Conversation",
    "LiveConversation",
    "field_bytes",
    "field_varint",
    "step_metadata",
    "varint",
]

MODEL = "Gemini 3.x Flash (High)"
_SCHEMA = (
    "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, metadata BLOB)",
    "CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE gen_metadata (idx INTEGER PRIMARY KEY, data BLOB)",
)


# -- a tiny protobuf encoder -------------------------------------------------------------


def varint(value: int) -> bytes:
    """A non-negative integer as a protobuf varint."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number: int, value: int) -> bytes:
    """A wire-type-0 field."""
    return varint(number << 3) + varint(value)


def field_bytes(number: int, value: bytes | str) -> bytes:
    """A length-delimited (wire type 2) field: bytes, text or a nested message."""
    raw = value.encode() if isinstance(value, str) else value
    return varint(number << 3 | 2) + varint(len(raw)) + raw


def step_metadata(
    at: datetime, *, output_tokens: int | None = None, summary: str | None = None, action: str | None = None
) -> bytes:
    """A step's metadata: timestamp (1), usage (9, output tokens in 3), summary (30), action (31)."""
    seconds = int(at.timestamp())
    nanos = at.microsecond * 1000
    out = field_bytes(1, field_varint(1, seconds) + field_varint(2, nanos))
    out += field_varint(4, 7)  # a field readers do not use
    if output_tokens is not None:
        out += field_bytes(9, field_varint(1, 900) + field_varint(3, output_tokens))
    if summary is not None:
        out += field_bytes(30, summary)
    if action is not None:
        out += field_bytes(31, action)
    return out


def trajectory_metadata(own_id: str, parent_id: str | None, role: str | None, kind: str | None) -> bytes:
    """The ``main`` trajectory row: parent (5) for a subagent, own id (6), label message (8)."""
    out = field_bytes(1, "trajectory")
    if parent_id is not None:
        out += field_bytes(5, parent_id)
    out += field_bytes(6, own_id)
    if role is not None or kind is not None:
        label = (field_bytes(1, kind) if kind else b"") + (field_bytes(2, role) if role else b"")
        out += field_bytes(8, label)
    return out


def generation_metadata(model: str) -> bytes:
    """Generation metadata whose last field is the model display name (1 → 21)."""
    inner = field_bytes(3, b"\x00" * 40) + field_bytes(19, "internal-alias-x") + field_bytes(21, model)
    return field_varint(2, 1) + field_bytes(1, inner)


def _iso_glog(at: datetime) -> str:
    local = at.astimezone(UTC)
    return f"I{local.strftime('%m%d %H:%M:%S')}.{local.microsecond // 1000:03d}"


class AntigravityStore:
    """An ``antigravity-cli`` directory under a home (or under ``GEMINI_CLI_HOME``)."""

    def __init__(self, home: Path, *, gemini_cli_home: Path | None = None) -> None:
        self.root = (gemini_cli_home or home) / ".gemini" / "antigravity-cli"
        (self.root / "conversations").mkdir(parents=True, exist_ok=True)
        self.log_path: Path | None = None
        self._workspace: str | None = None

    def start_cli(self, workspace_dirs: list[str], at: datetime) -> Path:
        """A CLI run starts: a new log file naming its workspace directories."""
        self.log_path = self.root / "log" / f"cli-{at.astimezone(UTC).strftime('%Y%m%d-%H%M%S')}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._workspace = workspace_dirs[0] if workspace_dirs else None
        self.log(
            f"server.go:237] Creating CLI server backend: product=antigravity workspaceDirs=["
            f"{' '.join(workspace_dirs)}] appDataDir={self.root}",
            at,
        )
        return self.log_path

    def log(self, text: str, at: datetime) -> None:
        """Append one glog line to the current log file."""
        if self.log_path is None:
            return
        with open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(f"{_iso_glog(at)} {text}\n")
        os.utime(self.log_path, (at.timestamp(), at.timestamp()))

    def remember(self, workspace: str, conversation_id: str, at: datetime) -> None:
        """``cache/last_conversations.json``: *workspace*'s last conversation."""
        path = self.root / "cache" / "last_conversations.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        table = json.loads(path.read_text()) if path.exists() else {}
        table[workspace] = conversation_id
        path.write_text(json.dumps(table))
        os.utime(path, (at.timestamp(), at.timestamp()))

    def conversation(
        self,
        conversation_id: str,
        *,
        at: datetime,
        workspace: str | None = None,
        parent: Conversation | str | None = None,
        role: str | None = None,
        kind: str | None = None,
        model: str | None = MODEL,
        wal_held: bool = False,
        live: bool = False,
    ) -> Conversation:
        """Create a conversation database (a subagent when *parent* is given); *live* writes it
        in place through a connection kept open (a :class:`LiveConversation`)."""
        parent_id = parent.id if isinstance(parent, Conversation) else parent
        kind_of = LiveConversation if live else Conversation
        conv = kind_of(self, conversation_id, parent_id=parent_id, role=role, kind=kind, wal_held=wal_held)
        if model is not None:
            conv.gen.append(generation_metadata(model))
        if workspace is not None:
            self.remember(workspace, conversation_id, at)
        if self.log_path is not None and parent_id is None:
            self.log(f"server.go:917] Created conversation {conversation_id}", at)
        conv.flush(at)
        return conv


class Conversation:
    """One conversation database being written."""

    def __init__(
        self,
        store: AntigravityStore,
        conversation_id: str,
        *,
        parent_id: str | None,
        role: str | None,
        kind: str | None,
        wal_held: bool,
    ) -> None:
        self.store = store
        self.id = conversation_id
        self.path = store.root / "conversations" / f"{conversation_id}.db"
        self.wal_held = wal_held
        self.trajectory = trajectory_metadata(conversation_id, parent_id, role, kind)
        self.steps: list[tuple[int, int, int, bytes]] = []
        self.gen: list[bytes] = []

    # -- what a conversation does ------------------------------------------------------

    def step(self, step_type: int, metadata: bytes, at: datetime, status: int = 3) -> int:
        """Append one raw step (any type, any metadata bytes) and write the database."""
        idx = len(self.steps) + 1
        self.steps.append((idx, step_type, status, metadata))
        self.flush(at)
        return idx

    def prompt(self, text: str, at: datetime) -> int:
        """User input (step 14); the CLI log records the text and the conversation it went to."""
        self.store.log(f"input_loop.go:34] HandleUserInput called with text: {json.dumps(text)}", at)
        self.store.log(
            f"conversation_manager.go:499] Forwarding user message to conversation {self.id} (items=1, media=0)", at
        )
        return self.step(14, step_metadata(at), at)

    def respond(self, at: datetime, output_tokens: int = 120) -> int:
        """A model response (step 15) carrying its output tokens."""
        return self.step(15, step_metadata(at, output_tokens=output_tokens), at)

    def tool(self, summary: str, action: str, at: datetime) -> int:
        """A tool step (21) with its summary and action text."""
        return self.step(21, step_metadata(at, summary=summary, action=action), at)

    def model(self, name: str, at: datetime) -> None:
        """A new generation-metadata row naming the model."""
        self.gen.append(generation_metadata(name))
        self.flush(at)

    # -- the database ------------------------------------------------------------------

    def flush(self, at: datetime) -> None:
        """Write the whole database as the CLI would have it now, in place (same inode)."""
        scratch = Path(tempfile.mkdtemp(prefix="agy-fixture-"))
        try:
            db = scratch / "c.db"
            conn = sqlite3.connect(db, isolation_level=None)
            try:
                if self.wal_held:
                    conn.execute("PRAGMA journal_mode=WAL")
                    conn.execute("PRAGMA wal_autocheckpoint=0")
                for statement in _SCHEMA:
                    conn.execute(statement)
                held = self.steps[-1:] if self.wal_held else []
                self._insert(conn, self.steps[: len(self.steps) - len(held)], self.gen, self.trajectory)
                if self.wal_held:
                    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    self._insert(conn, held, [], None)  # the newest transaction stays in the -wal
                    conn.execute("SELECT count(*) FROM steps").fetchone()  # a read mark, as a live CLI has
                for suffix in ("", "-wal", "-shm"):
                    source = Path(str(db) + suffix)
                    target = Path(str(self.path) + suffix)
                    if source.exists():
                        with open(source, "rb") as src, open(target, "wb") as dst:
                            shutil.copyfileobj(src, dst)
                        os.utime(target, (at.timestamp(), at.timestamp()))
                    elif target.exists():
                        target.unlink()
            finally:
                conn.close()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    @staticmethod
    def _insert(
        conn: sqlite3.Connection, steps: list[tuple[int, int, int, bytes]], gen: list[bytes], trajectory: bytes | None
    ) -> None:
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO steps VALUES (?, ?, ?, ?)", steps)
        conn.executemany("INSERT INTO gen_metadata (data) VALUES (?)", [(g,) for g in gen])
        if trajectory is not None:
            conn.execute("INSERT INTO trajectory_metadata_blob VALUES ('main', ?)", (trajectory,))
        conn.execute("COMMIT")


class LiveConversation(Conversation):
    """A conversation written in place by one connection kept open in WAL mode, as a running
    CLI writes it: each :meth:`flush` commits only the rows added since the previous one.

    In ``cargento --demo`` that connection runs in the dashboard's own process, beside the board
    reader, yet needs no :func:`cargento.demowrites.retry_refused_write`: it creates the database,
    so it maps the WAL index first, writable, and keeps it mapped until :meth:`close`; SQLite
    lends that mapping to the reader's connections, which therefore never map it read-only first.
    A closed conversation is never written again."""

    def __init__(
        self,
        store: AntigravityStore,
        conversation_id: str,
        *,
        parent_id: str | None,
        role: str | None,
        kind: str | None,
        wal_held: bool,
    ) -> None:
        super().__init__(store, conversation_id, parent_id=parent_id, role=role, kind=kind, wal_held=wal_held)
        self._conn: sqlite3.Connection | None = None
        self._steps_written = 0
        self._gen_written = 0

    def flush(self, at: datetime) -> None:
        """Commit the rows added since the previous flush and stamp the files' mtimes with *at*."""
        conn = self._conn
        if conn is None:
            # The demo's writer thread is not the thread that created the conversation.
            conn = self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL syncs at checkpoints only, as apps commonly run it
            conn.execute("BEGIN")
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute("INSERT INTO trajectory_metadata_blob VALUES ('main', ?)", (self.trajectory,))
            conn.execute("COMMIT")
        self._insert(conn, self.steps[self._steps_written :], self.gen[self._gen_written :], None)
        self._steps_written = len(self.steps)
        self._gen_written = len(self.gen)
        self._stamp(at)

    def close(self, at: datetime) -> None:
        """Close the connection as an exiting CLI does: the ``-wal`` is checkpointed and removed."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            self._stamp(at)

    def _stamp(self, at: datetime) -> None:
        for suffix in ("", "-wal"):
            target = Path(str(self.path) + suffix)
            if target.exists():
                os.utime(target, (at.timestamp(), at.timestamp()))
