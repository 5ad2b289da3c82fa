"""Write realistic Claude Code stores: for tests, and for the ``cargento --demo`` simulator.

Importable with no test dependencies. Records are shaped like the ones Claude Code 2.1.332
wrote in the golden stores (``testdata/golden/claude-code-2.1.332``): one assistant record
per content block, all sharing the response's ``message.id`` and ``usage``; tool results as
user records; ``system``/``turn_duration`` after an interactive turn; metadata records without
timestamps. Every write stamps the file's mtime with the write's own time, so a store can be
built "as of" any moment.

Example::

    store = ClaudeStore(home)
    s = store.session(cwd="/w/proj", at=t0)
    s.prompt("Add a retry to the fetcher", at=t0)
    call = s.tool("Bash", at=t0 + 5, input={"command": "pytest"}, tokens=40)
    s.result(call, at=t0 + 9, error=True)
    s.end_turn(at=t0 + 12, text="Done.", tokens=12)
    store.task(s.session_id, "1", "Write tests", status="in_progress", active_form="Writing tests", at=t0 + 3)
    agent = s.subagent("a1b2c3", agent_type="Explore", description="Explore the repo", at=t0 + 6)
    agent.prompt("Look around", at=t0 + 6); agent.end_turn(at=t0 + 8, text="Nothing here.", tokens=9)
    agent.finish(at=t0 + 8)
"""

from __future__ import annotations

import json
import os
import uuid as uuidlib
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["AgentTranscript", "ClaudeStore", "Moment", "Transcript", "iso"]

#: A moment: an aware datetime or epoch seconds.
Moment = datetime | float | int
VERSION = "2.1.332"
MODEL = "claude-opus-5-5"


def _epoch(at: Moment) -> float:
    return at.timestamp() if isinstance(at, datetime) else float(at)


def iso(at: Moment) -> str:
    """``2026-11-30T07:36:36.144Z``: the timestamp spelling Claude Code writes."""
    moment = datetime.fromtimestamp(_epoch(at), UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _dump(record: Any) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _stamp(path: Path, at: Moment | None) -> None:
    if at is not None:
        os.utime(path, (_epoch(at), _epoch(at)))


class Transcript:
    """Appends records to one transcript file (a session, or a subagent's sidechain)."""

    def __init__(
        self,
        path: Path,
        session_id: str,
        *,
        cwd: str,
        version: str = VERSION,
        model: str = MODEL,
        interactive: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.version = version
        self.model = model
        self.interactive = interactive
        #: Fields written on every conversation record (``agentName``, ``teamName``,
        #: ``agentSetting``, ``isSidechain``/``agentId`` for subagents).
        self.extra = dict(extra or {})
        self.parent: str | None = None
        self._responses = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)

    # -- raw writing -------------------------------------------------------------------

    def append(self, record: dict[str, Any], at: Moment | None = None) -> dict[str, Any]:
        """Append one record as a JSON line and stamp the file's mtime with *at*."""
        with open(self.path, "ab") as fh:
            fh.write(_dump(record) + b"\n")
        _stamp(self.path, at)
        return record

    def append_raw(self, data: bytes, at: Moment | None = None) -> None:
        """Append raw bytes (a half-written line, garbage) exactly as given."""
        with open(self.path, "ab") as fh:
            fh.write(data)
        _stamp(self.path, at)

    def _base(self, kind: str, at: Moment) -> dict[str, Any]:
        ident = str(uuidlib.uuid4())
        record: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": bool(self.extra.get("isSidechain", False)),
            "type": kind,
            "uuid": ident,
            "timestamp": iso(at),
            "userType": "external",
            "entrypoint": "cli" if self.interactive else "sdk-cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "HEAD",
        }
        record.update(self.extra)
        self.parent = ident
        return record

    # -- conversation ------------------------------------------------------------------

    def prompt(self, text: str, at: Moment, *, origin: str | None = None) -> str:
        """A prompt the operator typed (``origin`` ``task_notification`` etc. for the ones
        Claude Code writes itself). Returns the record's uuid."""
        record = self._base("user", at)
        record["message"] = {"role": "user", "content": text}
        record["promptId"] = str(uuidlib.uuid4())
        record["permissionMode"] = "default"
        if origin is None:
            record["promptSource"] = "typed" if self.interactive else "sdk"
            record["turnOrigin"] = "human" if self.interactive else "sdk"
        else:
            record["promptSource"] = "system"
            record["turnOrigin"] = origin
        self.append(record, at)
        return str(record["uuid"])

    def respond(
        self,
        at: Moment,
        *,
        text: str | None = None,
        tools: Sequence[tuple[str, dict[str, Any]]] = (),
        tokens: int = 10,
        stop_reason: str | None = "auto",
        model: str | None = None,
        thinking: bool = False,
        message_id: str | None = None,
    ) -> list[str]:
        """One API response: a record per content block (thinking, text, each tool call),
        all sharing ``message.id`` and ``usage``. ``stop_reason`` ``auto`` is ``tool_use``
        when tools were called and ``end_turn`` otherwise; ``None`` writes what older
        versions wrote while streaming. Returns the tool-use ids."""
        self._responses += 1
        message_id = message_id or f"msg_{uuidlib.uuid4().hex[:20]}"
        reason = ("tool_use" if tools else "end_turn") if stop_reason == "auto" else stop_reason
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": "", "signature": "sig"})
        if text is not None:
            blocks.append({"type": "text", "text": text})
        ids = []
        for index, (name, given) in enumerate(tools):
            ident = f"toolu_{message_id[4:]}_{index}"
            ids.append(ident)
            blocks.append({"type": "tool_use", "id": ident, "name": name, "input": given})
        if not blocks:
            blocks.append({"type": "text", "text": ""})
        usage = {
            "input_tokens": 100,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": tokens,
        }
        for block in blocks:
            record = self._base("assistant", at)
            record["message"] = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model or self.model,
                "content": [block],
                "stop_reason": reason,
                "stop_sequence": None,
                "usage": usage,
            }
            record["requestRef"] = str(uuidlib.uuid4())
            self.append(record, at)
        return ids

    def tool(
        self, name: str, at: Moment, *, input: dict[str, Any] | None = None, tokens: int = 10, text: str | None = None
    ) -> str:
        """The model calls one tool; returns its tool-use id."""
        return self.respond(at, text=text, tools=[(name, input or {})], tokens=tokens)[0]

    def result(
        self, tool_use_id: str, at: Moment, *, error: bool = False, output: str = "ok", tool_result: Any = None
    ) -> None:
        """The tool's result (``error`` sets ``is_error``, a failed call)."""
        record = self._base("user", at)
        record["message"] = {
            "role": "user",
            "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": output, "is_error": error}],
        }
        record["toolUseResult"] = (
            tool_result if tool_result is not None else {"stdout": output, "stderr": "", "interrupted": False}
        )
        self.append(record, at)

    def spacedock_boot(
        self, workflow_dir: str, entity_dir: str, at: Moment, *, dispatchable: Sequence[dict[str, str]] = ()
    ) -> str:
        """A first officer's ``spacedock status --boot --json`` Bash call and its JSON output;
        returns the tool-use id."""
        call = self.tool("Bash", at, input={"command": f"spacedock status --boot --json --workflow-dir {workflow_dir}"})
        boot = {
            "workflow_dir": workflow_dir,
            "entity_dir": entity_dir,
            "state_backend": "split-root",
            "dispatchable": list(dispatchable),
        }
        self.result(call, at, output=json.dumps(boot, indent=2))
        return call

    def tokens(self, n: int, at: Moment, *, text: str = "…") -> None:
        """Text generated mid-turn (streamed, no stop reason yet)."""
        self.respond(at, text=text, tokens=n, stop_reason=None)

    def think(self, at: Moment, *, tokens: int = 5) -> None:
        """A thinking block only: the model holds the turn."""
        self.respond(at, thinking=True, tokens=tokens, stop_reason=None)

    def end_turn(self, at: Moment, *, text: str = "Done.", tokens: int = 10, duration: bool | None = None) -> None:
        """The final answer of the turn; an interactive session also records the turn's duration."""
        self.respond(at, text=text, tokens=tokens, stop_reason="end_turn")
        if duration if duration is not None else self.interactive:
            record = self._base("system", at)
            record.update({"subtype": "turn_duration", "durationMs": 1000, "messageCount": 3, "isMeta": False})
            self.append(record, at)

    def interrupt(self, at: Moment) -> None:
        """The operator pressed Esc: Claude Code writes an interruption marker."""
        record = self._base("user", at)
        record["message"] = {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}
        self.append(record, at)

    def api_error(self, at: Moment, message: str = "API Error: 529 overloaded") -> None:
        """A locally generated error record (model ``<synthetic>``) that ends the turn."""
        record = self._base("assistant", at)
        record["message"] = {
            "id": str(uuidlib.uuid4()),
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [{"type": "text", "text": message}],
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        record["isApiErrorMessage"] = True
        self.append(record, at)

    def wait(self, question: str, at: Moment, *, more: Sequence[str] = (), tokens: int = 20) -> str:
        """``AskUserQuestion``: the model stops to ask; returns the tool-use id."""
        questions = [
            {
                "question": q,
                "header": "Q",
                "multiSelect": False,
                "options": [{"label": "A", "description": ""}, {"label": "B", "description": ""}],
            }
            for q in (question, *more)
        ]
        return self.tool("AskUserQuestion", at, input={"questions": questions}, tokens=tokens)

    def plan(self, plan: str, at: Moment, *, tokens: int = 30) -> str:
        """``ExitPlanMode``: the model asks to leave plan mode with *plan*; returns the id."""
        return self.tool("ExitPlanMode", at, input={"plan": plan}, tokens=tokens)

    def answer(self, tool_use_id: str, at: Moment, text: str = "A") -> None:
        """The operator answered a question or approved a plan."""
        self.result(tool_use_id, at, output=f'User has answered your questions: "{text}"')

    def notification(self, text: str, at: Moment) -> None:
        """A ``<task-notification>`` Claude Code feeds back when a background agent finishes."""
        self.prompt(f"<task-notification>\n{text}\n</task-notification>", at, origin="task_notification")

    # -- metadata records (no timestamps, like the real ones) ---------------------------

    def title(self, text: str, *, custom: bool = False, at: Moment | None = None) -> None:
        """A generated (``ai-title``) or user-set (``custom-title``) title."""
        kind, key = ("custom-title", "customTitle") if custom else ("ai-title", "aiTitle")
        self.append({"type": kind, key: text, "sessionId": self.session_id}, at)

    def last_prompt(self, text: str, at: Moment | None = None) -> None:
        self.append(
            {"type": "last-prompt", "lastPrompt": text, "leafUuid": self.parent, "sessionId": self.session_id}, at
        )

    def bookkeeping(self, at: Moment) -> None:
        """The records Claude Code writes around a prompt that are not conversation."""
        self.append(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": iso(at),
                "sessionId": self.session_id,
                "content": "",
            },
            at,
        )
        record = self._base("attachment", at)
        record["attachment"] = {"type": "model", "identity": {"modelId": self.model, "marketingName": "Opus 5.5"}}
        self.append(record, at)
        self.append({"type": "atis-latch", "atis": "", "sessionId": self.session_id}, at)


class AgentTranscript(Transcript):
    """A subagent's sidechain transcript in the session folder, with its ``.meta.json``."""

    def __init__(
        self, path: Path, session_id: str, agent_id: str, meta: dict[str, Any], *, cwd: str, at: Moment | None = None
    ) -> None:
        super().__init__(path, session_id, cwd=cwd, interactive=False, extra={"isSidechain": True, "agentId": agent_id})
        self.agent_id = agent_id
        self.meta = meta
        self.meta_path = path.with_name(path.name[: -len(".jsonl")] + ".meta.json")
        self._write_meta(at)

    def _write_meta(self, at: Moment | None) -> None:
        self.meta_path.write_bytes(_dump(self.meta))
        _stamp(self.meta_path, at)

    def finish(self, at: Moment | None = None) -> None:
        """Claude Code marks a subagent that finished with ``finished: true``."""
        self.meta["finished"] = True
        self._write_meta(at)


class Session(Transcript):
    """A top-level session transcript, with helpers for its subagents."""

    def subagent(
        self,
        agent_id: str,
        *,
        agent_type: str = "general-purpose",
        description: str | None = None,
        name: str | None = None,
        team_name: str | None = None,
        workflow: str | None = None,
        at: Moment | None = None,
    ) -> AgentTranscript:
        """A subagent (or, with *name* and *team_name*, an in-process teammate) in this
        session's folder; *workflow* nests it in ``subagents/workflows/<run-id>/``."""
        folder = self.path.with_suffix("") / "subagents"
        if workflow:
            folder = folder / "workflows" / workflow
        meta: dict[str, Any] = {
            "agentType": agent_type,
            "isBuiltIn": name is None,
            "spawnDepth": 1,
            "model": self.model,
        }
        if description:
            meta["description"] = description
        if name:
            meta["name"] = name
        if team_name:
            meta["teamName"] = team_name
            meta["taskKind"] = "in_process_teammate"
        return AgentTranscript(folder / f"agent-{agent_id}.jsonl", self.session_id, agent_id, meta, cwd=self.cwd, at=at)


class ClaudeStore:
    """A Claude Code store under a home directory (or a ``CLAUDE_CONFIG_DIR``)."""

    def __init__(self, home: Path, *, root: Path | None = None) -> None:
        self.home = home
        self.root = root or home / ".claude"

    def project_dir(self, cwd: str) -> Path:
        """``projects/<cwd with every non-alphanumeric character as '-'>``."""
        return self.root / "projects" / "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)

    def session(
        self,
        session_id: str | None = None,
        *,
        cwd: str = "/w/proj",
        interactive: bool = True,
        agent_name: str | None = None,
        team_name: str | None = None,
        agent_setting: str | None = None,
        model: str = MODEL,
        version: str = VERSION,
    ) -> Session:
        """A new session transcript. *agent_name* + *team_name* make it a teammate in the
        top-level layout; *agent_setting* is what Spacedock launches carry."""
        sid = session_id or str(uuidlib.uuid4())
        extra: dict[str, Any] = {}
        if agent_setting:
            extra["agentSetting"] = agent_setting
        if agent_name:
            extra["agentName"] = agent_name
        if team_name:
            extra["teamName"] = team_name
        return Session(
            self.project_dir(cwd) / f"{sid}.jsonl",
            sid,
            cwd=cwd,
            interactive=interactive,
            model=model,
            version=version,
            extra=extra,
        )

    def metadata_only(
        self, session_id: str, *, cwd: str = "/w/proj", title: str = "A title", at: Moment | None = None
    ) -> Path:
        """A transcript holding only metadata records: not a session."""
        path = self.project_dir(cwd) / f"{session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [
            {"type": "ai-title", "aiTitle": title, "sessionId": session_id},
            {"type": "agent-name", "agentName": "helper", "sessionId": session_id},
            {"type": "pr-link", "prNumber": 7, "prUrl": "https://example.invalid/pr/7", "sessionId": session_id},
        ]
        path.write_bytes(b"".join(_dump(r) + b"\n" for r in lines))
        _stamp(path, at)
        return path

    def task(
        self,
        session_id: str,
        task_id: str,
        subject: str,
        *,
        status: str = "pending",
        active_form: str | None = None,
        at: Moment | None = None,
        folder: str | None = None,
    ) -> Path:
        """Write (or overwrite) ``tasks/<session>/<id>.json``; *folder* overrides the folder
        name (``session-<id>`` for the older layout)."""
        where = self.root / "tasks" / (folder or session_id)
        where.mkdir(parents=True, exist_ok=True)
        lock = where / ".lock"
        if not lock.exists():
            lock.touch()
        data: dict[str, Any] = {
            "id": task_id,
            "subject": subject,
            "description": subject,
            "status": status,
            "blocks": [],
            "blockedBy": [],
        }
        if active_form:
            data["activeForm"] = active_form
        path = where / f"{task_id}.json"
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        _stamp(path, at)
        return path

    def team(
        self,
        lead: Transcript,
        members: Iterable[tuple[str, Moment]],
        *,
        at: Moment | None = None,
        inactive: Iterable[str] = (),
    ) -> Path:
        """The implicit team roster ``teams/session-<8 hex>/config.json`` of *lead*, with
        ``(name, joined at)`` members; names in *inactive* carry ``isActive: false``."""
        name = f"session-{lead.session_id[:8]}"
        stopped = set(inactive)
        roster = [
            {
                "agentId": f"team-lead@{name}",
                "name": "team-lead",
                "agentType": "team-lead",
                "joinedAt": 0,
                "cwd": lead.cwd,
                "backendType": "in-process",
            }
        ]
        for member, joined in members:
            entry: dict[str, Any] = {
                "agentId": f"{member}@{name}",
                "name": member,
                "agentType": "general-purpose",
                "joinedAt": int(_epoch(joined) * 1000),
                "cwd": lead.cwd,
                "backendType": "in-process",
            }
            if member in stopped:
                entry["isActive"] = False
            roster.append(entry)
        data = {
            "name": name,
            "createdAt": 0,
            "leadAgentId": f"team-lead@{name}",
            "leadSessionId": lead.session_id,
            "members": roster,
        }
        path = self.root / "teams" / name / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        _stamp(path, at)
        return path

    def pid_file(
        self,
        session: Transcript,
        pid: int,
        *,
        status: str,
        at: Moment,
        started_at: Moment,
        waiting_for: str | None = None,
    ) -> Path:
        """``sessions/<pid>.json`` as a running process keeps it (``status`` busy, idle or
        waiting with *waiting_for*); *started_at* is the process's start time."""
        data: dict[str, Any] = {
            "pid": pid,
            "sessionId": session.session_id,
            "cwd": session.cwd,
            "startedAt": int(_epoch(started_at) * 1000),
            "procStart": "40984",
            "version": session.version,
            "kind": "interactive",
            "entrypoint": "cli",
            "name": "demo",
            "nameSource": "derived",
            "status": status,
            "updatedAt": int(_epoch(at) * 1000),
            "statusUpdatedAt": int(_epoch(at) * 1000),
        }
        if waiting_for:
            data["waitingFor"] = waiting_for
        path = self.root / "sessions" / f"{pid}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_dump(data))
        _stamp(path, at)
        return path

    def remove_pid_file(self, pid: int) -> None:
        """The process exited cleanly: Claude Code removes its ``sessions/<pid>.json``."""
        (self.root / "sessions" / f"{pid}.json").unlink(missing_ok=True)

    def delete_task(self, session_id: str, task_id: str, *, folder: str | None = None) -> None:
        """``TaskUpdate`` with status ``deleted``: the task's file is removed."""
        (self.root / "tasks" / (folder or session_id) / f"{task_id}.json").unlink(missing_ok=True)
