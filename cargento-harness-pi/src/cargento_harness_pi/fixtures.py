"""Store builders: write Pi v3 session files the way Pi 0.73 writes them, with explicit times.

Used by this package's tests and by the ``cargento --demo`` simulator; nothing here imports a
test library. Example::

    store = PiStore(home)                              # ~/.pi/agent/sessions, nested per cwd
    s = store.session(cwd="/w/app", at=t0)
    s.model_change("openai-codex", "gpt-5.6-sol", t0)
    s.prompt("Fix the flaky test", t0)
    call = s.tool("bash", t0 + 2, arguments={"command": "npm test"}, output=42)   # stopReason toolUse
    s.tool_result(call, "bash", "ok", t0 + 9)
    s.reply("Fixed.", t0 + 10, output=12)             # stopReason stop: the turn ended

Pi creates the file only when the first assistant message lands, so entries written before
that are held and flushed with it (exactly what a session on its first turn looks like on
disk: nothing). :meth:`PiSession.branch` moves the leaf back to an earlier entry, the way a
rewind or ``/tree`` jump does, so later entries start a sibling branch. Pi persists no waits:
an extension UI prompt reaches Cargento only through its event adapter.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["Moment", "PiSession", "PiStore", "encode_cwd"]

Moment = datetime | float | int


def _moment(at: Moment) -> datetime:
    if isinstance(at, datetime):
        return at if at.tzinfo else at.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(at), UTC)


def _iso(at: Moment) -> str:
    moment = _moment(at).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _ms(at: Moment) -> int:
    return int(_moment(at).timestamp() * 1000)


def encode_cwd(cwd: str) -> str:
    """Pi's folder name for a cwd: one leading separator dropped, ``/ \\ :`` as ``-``."""
    body = cwd[1:] if cwd.startswith(("/", "\\")) else cwd
    for sep in ("/", "\\", ":"):
        body = body.replace(sep, "-")
    return f"--{body}--"


class PiStore:
    """A Pi session store: nested per cwd below *root* (default ``~/.pi/agent/sessions``),
    or flat (``flat=True``, as a ``PI_CODING_AGENT_SESSION_DIR`` store often is)."""

    def __init__(self, home: Path, *, root: Path | None = None, flat: bool = False) -> None:
        self.home = home
        self.root = root if root is not None else home / ".pi" / "agent" / "sessions"
        self.flat = flat

    def session(
        self,
        session_id: str | None = None,
        *,
        cwd: str,
        at: Moment,
        parent_session: str | None = None,
        eager: bool = False,
    ) -> PiSession:
        """A new session; *parent_session* marks a fork or clone; *eager* writes the file at once."""
        sid = session_id or str(uuid.uuid4())
        folder = self.root if self.flat else self.root / encode_cwd(cwd)
        stamp = _moment(at).strftime("%Y-%m-%dT%H-%M-%S-") + f"{_moment(at).microsecond // 1000:03d}Z"
        header: dict[str, Any] = {"type": "session", "version": 3, "id": sid, "timestamp": _iso(at), "cwd": cwd}
        if parent_session:
            header["parentSession"] = parent_session
        session = PiSession(folder / f"{stamp}_{sid}.jsonl", sid, header, at)
        if eager:
            session.flush(at)
        return session


class PiSession:
    """One session file being appended to."""

    def __init__(self, path: Path, session_id: str, header: dict[str, Any], at: Moment) -> None:
        self.path = path
        self.session_id = session_id
        self.leaf: str | None = None
        self.count = 0
        self.calls = 0
        self.pending: list[dict[str, Any]] = [header]
        self.written = False

    # -- raw --------------------------------------------------------------------------------

    def flush(self, at: Moment) -> None:
        """Write held entries (Pi writes the file once the first assistant message lands)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "ab") as fh:
            for record in self.pending:
                fh.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        self.pending = []
        self.written = True
        stamp = _moment(at).timestamp()
        os.utime(self.path, (stamp, stamp))

    def raw(self, data: bytes, at: Moment) -> None:
        """Append bytes as they are (half-written lines, garbage)."""
        self.flush(at)
        with open(self.path, "ab") as fh:
            fh.write(data)
        stamp = _moment(at).timestamp()
        os.utime(self.path, (stamp, stamp))

    def entry(self, kind: str, at: Moment, *, parent: str | None = None, **fields: Any) -> str:
        """Append one tree entry continuing the current leaf (or *parent*); return its id."""
        self.count += 1
        eid = uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{self.count}").hex[:8]
        record = {
            "type": kind,
            "id": eid,
            "parentId": parent if parent is not None else self.leaf,
            "timestamp": _iso(at),
            **fields,
        }
        self.pending.append(record)
        self.leaf = eid
        if self.written or (kind == "message" and fields.get("message", {}).get("role") == "assistant"):
            self.flush(at)
        return eid

    def branch(self, entry_id: str | None) -> None:
        """Continue from *entry_id* (a rewind): the next entry starts a sibling branch."""
        self.leaf = entry_id

    # -- entries ------------------------------------------------------------------------------

    def model_change(self, provider: str | None, model: str, at: Moment) -> str:
        fields: dict[str, Any] = {"modelId": model}
        if provider is not None:
            fields["provider"] = provider
        return self.entry("model_change", at, **fields)

    def prompt(self, text: str, at: Moment) -> str:
        """A user message."""
        return self.entry(
            "message", at, message={"role": "user", "content": [{"type": "text", "text": text}], "timestamp": _ms(at)}
        )

    def assistant(
        self,
        at: Moment,
        *,
        text: str | None = None,
        calls: Sequence[tuple[str, dict[str, Any]]] = (),
        stop: str | None = "stop",
        provider: str | None = "openai-codex",
        model: str | None = "gpt-5.6-sol",
        output: int | None = 20,
    ) -> tuple[str, list[str]]:
        """An assistant message; returns its id and the ids of its tool calls."""
        content: list[dict[str, Any]] = []
        if text:
            content.append({"type": "text", "text": text})
        ids: list[str] = []
        for name, arguments in calls:
            self.calls += 1
            call = f"call_{self.calls}"
            ids.append(call)
            content.append({"type": "toolCall", "id": call, "name": name, "arguments": arguments})
        message: dict[str, Any] = {"role": "assistant", "content": content, "api": "openai-responses"}
        if provider is not None:
            message["provider"] = provider
        if model is not None:
            message["model"] = model
        if output is not None:
            message["usage"] = {
                "input": 100,
                "output": output,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 100 + output,
            }
        if stop is not None:
            message["stopReason"] = stop
        message["timestamp"] = _ms(at)
        return self.entry("message", at, message=message), ids

    def reply(self, text: str, at: Moment, *, output: int | None = 20, stop: str = "stop", **kw: Any) -> str:
        """A final assistant answer (``stopReason`` ``stop`` unless told): the turn ends; *output* ``None``
        writes no usage block."""
        eid, _ = self.assistant(at, text=text, stop=stop, output=output, **kw)
        return eid

    def tool(
        self, name: str, at: Moment, *, arguments: dict[str, Any] | None = None, output: int = 20, **kw: Any
    ) -> str:
        """An assistant tool call (``stopReason`` ``toolUse``); returns the call id."""
        _, ids = self.assistant(at, calls=[(name, arguments or {})], stop="toolUse", output=output, **kw)
        return ids[0]

    def tool_result(
        self, call: str, name: str, text: str, at: Moment, *, error: bool = False, output: int | None = None
    ) -> str:
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": error,
            "timestamp": _ms(at),
        }
        if output is not None:
            message["usage"] = {"output": output}
        return self.entry("message", at, message=message)

    def session_info(self, name: str | None, at: Moment) -> str:
        """A title (``None`` or ``""`` clears it)."""
        fields: dict[str, Any] = {}
        if name is not None:
            fields["name"] = name
        return self.entry("session_info", at, **fields)

    def compaction(self, at: Moment, *, output: int | None = None, first_kept: str | None = None) -> str:
        fields: dict[str, Any] = {
            "summary": "Earlier work summarised.",
            "firstKeptEntryId": first_kept,
            "tokensBefore": 50_000,
        }
        if output is not None:
            fields["usage"] = {"output": output}
        return self.entry("compaction", at, **fields)

    def branch_summary(self, from_id: str, at: Moment, *, output: int | None = None) -> str:
        fields: dict[str, Any] = {"fromId": from_id, "summary": "The abandoned branch tried X."}
        if output is not None:
            fields["usage"] = {"output": output}
        return self.entry("branch_summary", at, **fields)

    def spacedock_boot(self, workflow_dir: str, entity_dir: str, at: Moment) -> str:
        """A ``spacedock status --boot --json`` bash call and its JSON result."""
        call = self.tool(
            "bash", at, arguments={"command": f"spacedock status --boot --json --workflow-dir {workflow_dir}"}
        )
        boot = {
            "workflow_dir": workflow_dir,
            "entity_dir": entity_dir,
            "state_backend": "split-root",
            "dispatchable": [{"slug": "task-1", "current": "implementation", "next": "validation"}],
        }
        return self.tool_result(call, "bash", json.dumps(boot, indent=2), at)
