"""Writing realistic OpenCode stores: for tests and for the ``cargento --demo`` simulator.

The schema and row shapes follow what OpenCode 1.18.33 wrote
(``testdata/golden/opencode-1.18.33``): ``opencode.db`` in WAL mode with ``session``,
``message`` (role inside ``data``), ``part`` (typed ``data``), ``todo`` and the never-written
``session_message``. Times are epoch milliseconds. Every method takes an explicit time;
nothing reads a clock. Example::

    store = OpenCodeStore(home)
    s = store.session(cwd="/w/proj", at=t0, title="Fix login")
    s.prompt("fix the login bug", at=t0 + 1)
    s.reply(at=t0 + 2)                      # an assistant message starts generating
    call = s.wait("bash", at=t0 + 3, input={"command": "npm test"})   # permission dialog
    s.answer(call, at=t0 + 20)              # the command starts: metadata is written
    s.tool_done(call, at=t0 + 25, output="ok")
    s.end_turn(at=t0 + 26, output_tokens=40)

Each call opens the database, writes, commits and closes, as short as OpenCode's own
writes; closing checkpoints the WAL, so the ``-wal``/``-shm`` files are gone afterwards (unless a
reader held the database as the writer closed: then they stay, as SQLite leaves them).

In ``cargento --demo`` these writes run in the dashboard's own process, beside its board reader,
which a real OpenCode never does. SQLite maps a database's ``-shm`` (the WAL index) once per
process and lends that mapping to every connection of the process: when the reader's
``readonly_shm`` connection maps it first (the ``-wal``/``-shm`` left behind by an earlier write),
a write made while that read is open is refused with ``SQLITE_READONLY``. :meth:`OpenCodeStore.write`
tries such a write again until the read pass has let go (it lasts milliseconds), instead of
failing it (:func:`cargento.demowrites.retry_refused_write`, shared by every demo store).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import string
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.demowrites import Pause, retry_refused_write

__all__ = ["Moment", "OpenCodeSession", "OpenCodeStore"]

Moment = datetime | float
SCHEMA = """
CREATE TABLE IF NOT EXISTS `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `sandboxes` text NOT NULL);
CREATE TABLE IF NOT EXISTS `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text,
  `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL,
  `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer,
  `summary_files` integer, `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL,
  `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL,
  `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL,
  `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text, `agent` text, `model` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer,
  `time_archived` integer);
CREATE INDEX IF NOT EXISTS `session_parent_idx` ON `session` (`parent_id`);
CREATE TABLE IF NOT EXISTS `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX IF NOT EXISTS `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE TABLE IF NOT EXISTS `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE INDEX IF NOT EXISTS `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX IF NOT EXISTS `part_session_idx` ON `part` (`session_id`);
CREATE TABLE IF NOT EXISTS `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL,
  `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`));
CREATE INDEX IF NOT EXISTS `todo_session_idx` ON `todo` (`session_id`);
CREATE TABLE IF NOT EXISTS `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL,
  `type` text NOT NULL, `seq` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL,
  `data` text NOT NULL);
CREATE TABLE IF NOT EXISTS `permission` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `action` text NOT NULL,
  `resource` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
"""


def _moment(at: Moment) -> datetime:
    if isinstance(at, datetime):
        return at if at.tzinfo else at.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(at), UTC)


def _ms(at: Moment) -> int:
    return round(_moment(at).timestamp() * 1000)


class OpenCodeStore:
    """An OpenCode data directory (``$XDG_DATA_HOME/opencode``) and one database in it."""

    def __init__(
        self, home: Path, *, data_dir: Path | None = None, name: str = "opencode.db", seed: int = 7, wal: bool = True
    ) -> None:
        self.home = Path(home)
        self.journal = "WAL" if wal else "DELETE"
        self.data_dir = Path(data_dir) if data_dir is not None else self.home / ".local" / "share" / "opencode"
        self.path = self.data_dir / name
        self._random = random.Random(seed)
        self._counter = 0
        #: How a refused write waits before its next try (a test can end the read there).
        self.pause: Pause = time.sleep

    def new_id(self, prefix: str, at: Moment) -> str:
        """An id shaped like OpenCode's (``ses_``/``msg_``/``prt_`` + hex time + random)."""
        self._counter += 1
        tail = "".join(self._random.choice(string.ascii_letters + string.digits) for _ in range(14))
        return f"{prefix}_{(_ms(at) * 1000 + self._counter) & 0xFFFFFFFFFFFF:012x}{tail}"

    def write(self, sql: str, params: Iterable[Any] = (), *, at: Moment | None = None) -> None:
        """Run one write in a short transaction, creating the schema on first use.

        A write refused because another connection of this process holds the WAL index
        read-only is tried again (up to :data:`cargento.demowrites.READONLY_TRIES` times): the
        refused try wrote nothing, its transaction rolled back when its connection closed.
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        values = tuple(params)
        retry_refused_write(lambda: self._commit(sql, values), pause=self.pause)
        if at is not None:
            stamp = _moment(at).timestamp()
            os.utime(self.path, (stamp, stamp))

    def _commit(self, sql: str, values: tuple[Any, ...]) -> None:
        """One try of :meth:`write`: open, write, commit and close."""
        conn = sqlite3.connect(self.path)
        try:
            conn.execute(f"PRAGMA journal_mode={self.journal}")
            conn.executescript(SCHEMA)
            conn.execute(sql, values)
            conn.commit()
        finally:
            conn.close()

    def session(
        self,
        *,
        cwd: str,
        at: Moment,
        title: str | None = None,
        model: tuple[str, str] | None = ("anthropic", "claude-sonnet-4-5"),
        agent: str = "build",
        parent: OpenCodeSession | None = None,
        session_id: str | None = None,
    ) -> OpenCodeSession:
        """Create a session row (a child when *parent* is given)."""
        sid = session_id or self.new_id("ses", at)
        default = ("Child" if parent else "New") + " session - " + _moment(at).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        model_json = json.dumps({"id": model[1], "providerID": model[0]}) if model else None
        self.write(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, path, title, version, agent, model, "
            "time_created, time_updated) VALUES (?, 'global', ?, 'quiet-otter', ?, ?, ?, '1.18.33', ?, ?, ?, ?)",
            (
                sid,
                parent.session_id if parent else None,
                cwd,
                cwd.lstrip("/"),
                title or default,
                agent,
                model_json,
                _ms(at),
                _ms(at),
            ),
            at=at,
        )
        return OpenCodeSession(self, sid, model=model, agent=agent, cwd=cwd)


class OpenCodeSession:
    """One session; every method writes what OpenCode writes at that moment."""

    def __init__(
        self, store: OpenCodeStore, session_id: str, *, model: tuple[str, str] | None, agent: str, cwd: str = "/"
    ) -> None:
        self.store = store
        self.cwd = cwd
        self.session_id = session_id
        self.model = model or ("anthropic", "claude-sonnet-4-5")
        self.agent = agent
        self.user_id: str | None = None
        self.assistant_id: str | None = None
        self._assistant: dict[str, Any] = {}
        self._tools: dict[str, dict[str, Any]] = {}
        self._created: Moment = 0.0

    # -- low level ------------------------------------------------------------------------------

    def touch(self, at: Moment) -> None:
        """``session.time_updated`` moves (OpenCode bumps it on session updates)."""
        self.store.write("UPDATE session SET time_updated = ? WHERE id = ?", (_ms(at), self.session_id), at=at)

    def _message(self, ident: str, data: dict[str, Any], at: Moment, created: Moment | None = None) -> None:
        self.store.write(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data",
            (ident, self.session_id, _ms(created if created is not None else at), _ms(at), json.dumps(data)),
            at=at,
        )

    def _part(self, ident: str, message: str, data: dict[str, Any], at: Moment, created: Moment | None = None) -> None:
        self.store.write(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data",
            (ident, message, self.session_id, _ms(created if created is not None else at), _ms(at), json.dumps(data)),
            at=at,
        )

    def part(self, data: dict[str, Any], at: Moment) -> None:
        """A part of any shape on the newest message (a new build's part type, for drift)."""
        message = self.assistant_id or self.user_id
        assert message is not None, "part after a prompt or reply"
        self._part(self.store.new_id("prt", at), message, data, at)

    def message(self, data: dict[str, Any], at: Moment) -> str:
        """A message of any shape (a new build's role, for drift). Returns its id."""
        ident = self.store.new_id("msg", at)
        self._message(ident, data, at)
        return ident

    # -- what a session does --------------------------------------------------------------------

    def prompt(self, text: str, at: Moment) -> str:
        """The user sends a prompt: a user message and its text part. Returns the message id."""
        ident = self.store.new_id("msg", at)
        self._message(
            ident,
            {
                "role": "user",
                "time": {"created": _ms(at)},
                "agent": self.agent,
                "model": {"providerID": self.model[0], "modelID": self.model[1]},
            },
            at,
        )
        self._part(self.store.new_id("prt", at), ident, {"type": "text", "text": text}, at)
        self.user_id = ident
        self.touch(at)
        return ident

    def attach(self, filename: str, at: Moment) -> None:
        """A file attached to the newest prompt (a ``file`` part: never a prompt)."""
        assert self.user_id is not None, "attach after a prompt"
        self._part(
            self.store.new_id("prt", at),
            self.user_id,
            {"type": "file", "mime": "text/plain", "filename": filename, "url": f"file:///{filename}"},
            at,
        )

    def synthetic(self, text: str, at: Moment) -> None:
        """A text part OpenCode adds itself (``synthetic: true``) to the newest prompt."""
        assert self.user_id is not None, "synthetic after a prompt"
        self._part(self.store.new_id("prt", at), self.user_id, {"type": "text", "text": text, "synthetic": True}, at)

    def reply(self, at: Moment, *, model: tuple[str, str] | None = None) -> str:
        """An assistant message starts (no ``time.completed`` yet). Returns its id."""
        provider, model_id = model or self.model
        ident = self.store.new_id("msg", at)
        self._assistant = {
            "parentID": self.user_id,
            "role": "assistant",
            "mode": self.agent,
            "agent": self.agent,
            "path": {"cwd": self.cwd, "root": "/"},
            "cost": 0,
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "modelID": model_id,
            "providerID": provider,
            "time": {"created": _ms(at)},
        }
        self._created = at
        self._message(ident, self._assistant, at)
        self._part(self.store.new_id("prt", at), ident, {"type": "step-start"}, at)
        self.assistant_id = ident
        return ident

    def text(self, text: str, at: Moment) -> None:
        """The assistant writes text."""
        assert self.assistant_id is not None, "text after reply"
        self._part(
            self.store.new_id("prt", at),
            self.assistant_id,
            {"type": "text", "text": text, "time": {"start": _ms(at), "end": _ms(at)}},
            at,
        )

    def tool(self, name: str, at: Moment, *, input: dict[str, Any] | None = None, started: bool = True) -> str:
        """A tool call runs; *started* False leaves it parked before its work (no metadata),
        which is how a permission prompt looks. Returns the part id."""
        assert self.assistant_id is not None, "tool after reply"
        ident = self.store.new_id("prt", at)
        state: dict[str, Any] = {"status": "running", "input": input or {}, "time": {"start": _ms(at)}}
        if started:
            state["metadata"] = {"output": ""}
        data = {"type": "tool", "tool": name, "callID": f"toolu_{ident[-8:]}", "state": state}
        self._tools[ident] = data
        self._part(ident, self.assistant_id, data, at)
        return ident

    def wait(self, name: str, at: Moment, *, input: dict[str, Any] | None = None) -> str:
        """A tool call stands at a permission prompt."""
        return self.tool(name, at, input=input, started=False)

    def answer(self, call: str, at: Moment) -> None:
        """The prompt is answered and the tool starts: its metadata is written."""
        data = self._tools[call]
        data["state"]["metadata"] = {"output": ""}
        self._part(call, self.assistant_id or "", data, at)

    def tool_done(self, call: str, at: Moment, *, output: str = "") -> None:
        """The tool call completes."""
        data = self._tools[call]
        state = data["state"]
        state.update(
            {"status": "completed", "output": output, "title": data["tool"], "metadata": {"output": output, "exit": 0}}
        )
        state["time"]["end"] = _ms(at)
        self._part(call, self.assistant_id or "", data, at)

    def end_turn(self, at: Moment, *, output_tokens: int = 0, finish: str = "stop") -> None:
        """The assistant message completes (``time.completed``, tokens, ``finish``); with
        ``finish="tool-calls"`` the turn goes on with another assistant message."""
        assert self.assistant_id is not None, "end_turn after reply"
        self._assistant["tokens"]["output"] = output_tokens
        self._assistant["time"]["completed"] = _ms(at)
        self._assistant["finish"] = finish
        self._part(
            self.store.new_id("prt", at),
            self.assistant_id,
            {"type": "step-finish", "reason": finish, "tokens": self._assistant["tokens"], "cost": 0},
            at,
        )
        self._message(self.assistant_id, self._assistant, at, created=self._created)
        self.store.write(
            "UPDATE session SET tokens_output = tokens_output + ?, time_updated = ? WHERE id = ?",
            (output_tokens, _ms(at), self.session_id),
            at=at,
        )

    def todos(self, rows: Iterable[tuple[str, str, str]], at: Moment) -> None:
        """Replace the todo list (``(content, status, priority)`` rows, as ``todowrite`` does)."""
        self.store.write("DELETE FROM todo WHERE session_id = ?", (self.session_id,), at=at)
        for position, (content, status, priority) in enumerate(rows):
            self.store.write(
                "INSERT INTO todo (session_id, content, status, priority, position, time_created, time_updated) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (self.session_id, content, status, priority, position, _ms(at), _ms(at)),
                at=at,
            )

    def subagent(
        self, description: str, at: Moment, *, agent: str = "general", model: tuple[str, str] | None = None
    ) -> OpenCodeSession:
        """A ``task`` tool call starts a child session; returns the child."""
        child = self.store.session(
            cwd=self.cwd,
            at=at,
            title=f"{description} (@{agent} subagent)",
            agent=agent,
            parent=self,
            model=model or self.model,
        )
        self.tool("task", at, input={"description": description, "subagent_type": agent})
        return child

    def archive(self, at: Moment) -> None:
        """The session is archived (it leaves the board)."""
        self.store.write(
            "UPDATE session SET time_archived = ?, time_updated = ? WHERE id = ?",
            (_ms(at), _ms(at), self.session_id),
            at=at,
        )
