"""Write realistic Factory Droid session stores, for tests and for the ``cargento --demo`` simulator.

Importable without any test dependency. Every write takes an explicit timestamp and stamps the
file's mtime with it, as the real CLI's append would::

    from cargento_harness_droid.fixtures import DroidSession

    s = DroidSession.create(home, "9e2f...", cwd="/w/proj", title="Fix login", at=t0)
    s.prompt("fix the login form", at=t0)
    call = s.tool("Execute", at=t1, input={"command": "npm test"})
    s.tool_result(call, at=t2, output="ok")
    s.reply("Fixed.", at=t3)

The record shapes follow ``formats.md`` section 10 (Droid 0.202.0): line 1 ``session_start``
with ``id``, ``title``, ``sessionTitle``, ``owner``, ``version`` and ``cwd``; then ``message``
records with Anthropic-style content blocks. Layouts: ``sessions`` (``sessions/<slug>/``, the
0.202.0 layout), ``projects`` (``projects/<project>/``, older builds) and ``flat``
(``sessions/<id>.jsonl``).
"""

from __future__ import annotations

import itertools
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

__all__ = ["DroidSession", "slugify"]

LayoutName = Literal["sessions", "projects", "flat"]


def slugify(cwd: str) -> str:
    """Droid's folder name for a working directory: separators become ``-``."""
    return re.sub(r"[\\/:]", "-", cwd)


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class DroidSession:
    """One Droid session file being written."""

    def __init__(self, path: Path, session_id: str) -> None:
        self.path = path
        self.session_id = session_id
        self._ids = itertools.count(1)
        self._last: str | None = None

    @classmethod
    def create(
        cls,
        home: Path,
        session_id: str,
        *,
        cwd: str | None,
        at: datetime,
        title: str | None = None,
        layout: LayoutName = "sessions",
        project: str | None = None,
        header: bool = True,
    ) -> DroidSession:
        """Create the session file (with its ``session_start`` line unless *header* is false)."""
        base = home / ".factory"
        if layout == "sessions":
            folder = base / "sessions" / slugify(cwd or "-unknown")
        elif layout == "projects":
            folder = base / "projects" / (project or slugify(cwd or "-unknown"))
        else:
            folder = base / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        session = cls(folder / f"{session_id}.jsonl", session_id)
        session.path.write_bytes(b"")
        if header:
            record: dict[str, Any] = {
                "type": "session_start",
                "id": session_id,
                "title": title or "",
                "owner": "demo",
                "version": 2,
            }
            if title is not None:
                record["sessionTitle"] = title
            if cwd is not None:
                record["cwd"] = cwd
            session.append(record, at)
        else:
            os.utime(session.path, (at.timestamp(), at.timestamp()))
        return session

    # -- raw ---------------------------------------------------------------------------

    def append(self, record: dict[str, Any] | bytes, at: datetime) -> None:
        """Append one record (or raw bytes, which may be a half-written line) and stamp mtime."""
        data = record if isinstance(record, bytes) else json.dumps(record, separators=(",", ":")).encode() + b"\n"
        with open(self.path, "ab") as fh:
            fh.write(data)
        os.utime(self.path, (at.timestamp(), at.timestamp()))

    def message(self, role: str, content: str | list[dict[str, Any]], at: datetime) -> str:
        """Append a ``message`` record; returns its id."""
        ident = f"m{next(self._ids)}"
        record: dict[str, Any] = {
            "type": "message",
            "id": ident,
            "timestamp": _iso(at),
            "message": {"role": role, "content": content},
        }
        if self._last is not None:
            record["parentId"] = self._last
        self._last = ident
        self.append(record, at)
        return ident

    # -- what a session does -----------------------------------------------------------

    def prompt(self, text: str, at: datetime) -> str:
        """The human types a prompt."""
        return self.message("user", [{"type": "text", "text": text}], at)

    def reply(self, text: str, at: datetime) -> str:
        """The model answers with text and no tool call."""
        return self.message("assistant", [{"type": "text", "text": text}], at)

    def think(self, text: str, at: datetime) -> str:
        """The model writes a thinking block only."""
        return self.message("assistant", [{"type": "thinking", "thinking": text}], at)

    def tool(self, name: str, at: datetime, input: dict[str, Any] | None = None, text: str | None = None) -> str:
        """The model calls a tool; returns the ``tool_use`` id to answer with :meth:`tool_result`."""
        call = f"toolu_{next(self._ids):04d}"
        blocks: list[dict[str, Any]] = []
        if text:
            blocks.append({"type": "text", "text": text})
        blocks.append({"type": "tool_use", "id": call, "name": name, "input": input or {}})
        self.message("assistant", blocks, at)
        return call

    def tool_result(self, call: str, at: datetime, output: str = "ok") -> str:
        """The tool's result comes back, carried by a user message (not a prompt)."""
        return self.message("user", [{"type": "tool_result", "tool_use_id": call, "content": output}], at)

    def settings(self, at: datetime, **values: Any) -> Path:
        """Write the sibling ``<id>.settings.json`` (which Cargento never reads)."""
        path = self.path.with_name(f"{self.session_id}.settings.json")
        path.write_text(json.dumps(values or {"model": "claude-x", "tokenUsage": {"outputTokens": 12}}))
        os.utime(path, (at.timestamp(), at.timestamp()))
        return path
