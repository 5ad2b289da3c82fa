"""Store builders: write Codex rollouts the way Codex 0.171 writes them, with explicit times.

Used by this package's tests and by the ``cargento --demo`` simulator. Nothing here imports a
test library. Example::

    store = CodexStore(home)                       # $HOME/.codex (or root=... for $CODEX_HOME)
    s = store.session("01a2...", cwd="/w/proj", at=t0)
    s.turn_start(t0); s.turn_context("gpt-5-codex", t0)
    s.prompt("Fix the parser", t0)
    s.plan([("Read the parser", "completed"), ("Add retry", "in_progress")], t0 + 2)
    call = s.tool("exec_command", t0 + 3, arguments={"cmd": "pytest"})
    s.tool_output(call, t0 + 9)
    s.tokens(120, t0 + 9)                          # one model response of 120 output tokens
    s.end_turn(t0 + 10)
    child = s.spawn("01a3...", nickname="Gibbs", at=t0 + 4)

Times are aware datetimes or epoch seconds. Each append stamps the file's mtime with the time
of the record written, so a home built here reads exactly as of those times. A pending
approval leaves nothing on disk in Codex (the rollout just ends with the tool call), so
:meth:`CodexSession.wait` writes the tool call and :meth:`CodexSession.answer` its output.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["CodexSession", "CodexStore", "Moment"]

Moment = datetime | float | int


def _moment(at: Moment) -> datetime:
    if isinstance(at, datetime):
        return at if at.tzinfo else at.replace(tzinfo=UTC)
    return datetime.fromtimestamp(float(at), UTC)


def _iso(at: Moment) -> str:
    moment = _moment(at).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class CodexStore:
    """A Codex home: ``<home>/.codex`` unless *root* (a ``$CODEX_HOME``) is given."""

    def __init__(self, home: Path, *, root: Path | None = None) -> None:
        self.home = home
        self.root = root if root is not None else home / ".codex"

    def session(
        self,
        session_id: str | None = None,
        *,
        cwd: str,
        at: Moment,
        parent: CodexSession | None = None,
        nickname: str | None = None,
        role: str | None = None,
        instructions_bytes: int = 2000,
        legacy: bool = False,
        filename_id: str | None = None,
    ) -> CodexSession:
        """Create a rollout with its ``session_meta`` line.

        *parent* makes it a subagent thread of that session; *instructions_bytes* pads line 1
        with embedded instructions as real builds do; *legacy* writes prompts and agent
        messages as the older ``event_msg`` records; *filename_id* names the file with another
        id (a resumed copy keeps the session id in line 1).
        """
        sid = session_id or str(uuid.uuid4())
        moment = _moment(at)
        folder = self.root / "sessions" / f"{moment:%Y}" / f"{moment:%m}" / f"{moment:%d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"rollout-{moment:%Y-%m-%dT%H-%M-%S}-{filename_id or sid}.jsonl"
        payload: dict[str, Any] = {
            "account_scoped": True,
            "session_id": parent.root_id if parent else sid,
            "id": sid,
        }
        if parent is not None:
            payload["parent_thread_id"] = parent.session_id
        payload.update({"timestamp": _iso(at), "cwd": cwd, "originator": "codex_exec", "cli_version": "0.171.0"})
        if parent is not None:
            payload["source"] = {
                "subagent": {
                    "thread_spawn": {
                        "parent_thread_id": parent.session_id,
                        "depth": parent.depth + 1,
                        "agent_path": None,
                        "agent_nickname": nickname,
                        "agent_role": role,
                    }
                }
            }
            payload["thread_source"] = "subagent"
            payload["agent_nickname"] = nickname
        else:
            payload["source"] = "exec"
            payload["thread_source"] = "user"
        payload["model_provider"] = "openai"
        payload["base_instructions"] = ("You are Codex, a coding agent. " * (instructions_bytes // 31 + 1))[
            :instructions_bytes
        ]
        payload["history_mode"] = "legacy" if legacy else "paginated"
        session = CodexSession(
            self,
            sid,
            path,
            root_id=parent.root_id if parent else sid,
            depth=parent.depth + 1 if parent else 0,
            legacy=legacy,
        )
        session.record("session_meta", payload, at)
        return session


class CodexSession:
    """One rollout file being appended to."""

    def __init__(
        self, store: CodexStore, session_id: str, path: Path, *, root_id: str, depth: int, legacy: bool
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.path = path
        self.root_id = root_id
        self.depth = depth
        self.legacy = legacy
        self.ordinal = 0
        self.turn_id: str | None = None
        self.turn_started: datetime | None = None
        self.cumulative = 0
        self.calls = 0

    # -- raw --------------------------------------------------------------------------------

    def record(self, kind: str, payload: Any, at: Moment) -> None:
        """Append one ``{"timestamp", "ordinal", "type", "payload"}`` line."""
        line = {"timestamp": _iso(at), "ordinal": self.ordinal, "type": kind, "payload": payload}
        self.ordinal += 1
        self.raw(json.dumps(line, separators=(",", ":")).encode() + b"\n", at)

    def raw(self, data: bytes, at: Moment) -> None:
        """Append bytes as they are (for half-written lines) and stamp the mtime."""
        with open(self.path, "ab") as fh:
            fh.write(data)
        stamp = _moment(at).timestamp()
        os.utime(self.path, (stamp, stamp))

    def event(self, kind: str, at: Moment, **fields: Any) -> None:
        self.record("event_msg", {"type": kind, **fields}, at)

    def item(self, kind: str, at: Moment, **fields: Any) -> None:
        self.record("response_item", {"type": kind, **fields}, at)

    # -- turns ------------------------------------------------------------------------------

    def turn_start(self, at: Moment) -> None:
        """``task_started``: a turn begins."""
        self.turn_id = str(uuid.uuid4())
        self.turn_started = _moment(at)
        self.event(
            "task_started",
            at,
            turn_id=self.turn_id,
            started_at=int(_moment(at).timestamp()),
            model_context_window=258400,
            collaboration_mode_kind="default",
        )

    def turn_context(self, model: str, at: Moment, *, cwd: str = "/") -> None:
        """``turn_context``: the model (and policy) of the turn."""
        self.record(
            "turn_context", {"turn_id": self.turn_id, "cwd": cwd, "approval_policy": "never", "model": model}, at
        )

    def end_turn(self, at: Moment, *, aborted: bool = False, duration: bool = True) -> None:
        """``task_complete`` (or ``turn_aborted``); *duration* writes ``duration_ms`` as 0.171 does."""
        fields: dict[str, Any] = {"turn_id": self.turn_id}
        if duration and self.turn_started is not None:
            fields["duration_ms"] = int((_moment(at) - self.turn_started).total_seconds() * 1000)
        self.event("turn_aborted" if aborted else "task_complete", at, **fields)

    # -- conversation -----------------------------------------------------------------------

    def prompt(self, text: str, at: Moment) -> None:
        """A human prompt, in the shape of this session's build."""
        if self.legacy:
            self.event("user_message", at, message=text, images=[])
            return
        meta = {"turn_id": self.turn_id, "content_item_kinds": ["user.text"]}
        self.item(
            "message",
            at,
            role="user",
            content=[{"type": "input_text", "text": text}],
            internal_chat_message_metadata_passthrough=meta,
        )
        self.event(
            "item_completed",
            at,
            turn_id=self.turn_id,
            item={"type": "UserMessage", "content": [{"type": "text", "text": text}]},
        )

    def injected(self, text: str, at: Moment) -> None:
        """Context Codex injects as a user message (``<environment_context>``...)."""
        meta = {"turn_id": self.turn_id, "content_item_kinds": ["environments.environment_context"]}
        self.item(
            "message",
            at,
            role="user",
            content=[{"type": "input_text", "text": text}],
            internal_chat_message_metadata_passthrough=meta,
        )

    def agent(self, text: str, at: Moment) -> None:
        """An agent message."""
        if self.legacy:
            self.event("agent_message", at, message=text)
            return
        self.event(
            "item_completed",
            at,
            turn_id=self.turn_id,
            item={"type": "AgentMessage", "content": [{"type": "Text", "text": text}]},
        )
        self.item("message", at, role="assistant", content=[{"type": "output_text", "text": text}])

    def reasoning(self, size: int, at: Moment) -> None:
        """An encrypted reasoning blob of about *size* bytes."""
        self.item("reasoning", at, summary=[], encrypted_content="gAAAA" + "x" * max(0, size - 5))

    def compact(self, at: Moment) -> None:
        """A ``compacted`` record: the context was summarised."""
        self.record("compacted", {"message": "summary", "replacement_history": []}, at)

    # -- tools --------------------------------------------------------------------------------

    def tool(self, name: str, at: Moment, *, arguments: dict[str, Any] | None = None) -> str:
        """A classic function call; returns its call id."""
        self.calls += 1
        call = f"call_{self.calls}"
        self.item("function_call", at, name=name, arguments=json.dumps(arguments or {}), call_id=call)
        return call

    def exec_cell(self, source: str, at: Moment) -> str:
        """A code-mode ``exec`` custom tool call carrying JavaScript *source*."""
        self.calls += 1
        call = f"call_{self.calls}"
        self.item("custom_tool_call", at, name="exec", input=source, call_id=call)
        return call

    def tool_output(self, call: str, at: Moment, output: str = "ok") -> None:
        self.item("function_call_output", at, call_id=call, output=output)

    def spacedock_boot(
        self,
        workflow_dir: str,
        entity_dir: str,
        at: Moment,
        *,
        exit_code: Any = 0,
        dispatchable: Sequence[dict[str, str]] = (),
    ) -> str:
        """A ``spacedock status --boot --json`` shell call and its fulfilled-result wrapper
        (``{"output", "metadata": {"exit_code"}}``); returns the call id."""
        call = self.tool(
            "shell",
            at,
            arguments={"command": ["bash", "-lc", f"spacedock status --boot --json --workflow-dir {workflow_dir}"]},
        )
        boot = {
            "workflow_dir": workflow_dir,
            "entity_dir": entity_dir,
            "state_backend": "split-root",
            "dispatchable": list(dispatchable),
        }
        wrapper = {"output": json.dumps(boot, indent=2), "metadata": {"exit_code": exit_code, "duration_seconds": 0.2}}
        self.tool_output(call, at, json.dumps(wrapper))
        return call

    def wait(self, name: str, at: Moment, *, arguments: dict[str, Any] | None = None) -> str:
        """A tool call waiting for approval: Codex persists only the call itself."""
        return self.tool(name, at, arguments=arguments)

    def answer(self, call: str, at: Moment) -> None:
        """The approved call's output."""
        self.tool_output(call, at)

    def plan(
        self,
        steps: Sequence[tuple[str, str]],
        at: Moment,
        *,
        shape: str = "function",
        explanation: str | None = None,
    ) -> None:
        """An ``update_plan`` call: *shape* ``function`` (JSON arguments) or ``exec`` (JavaScript)."""
        if shape == "exec":
            body = ", ".join(f"{{step: {json.dumps(s)}, status: '{st}'}}" for s, st in steps)
            note = f"explanation: {json.dumps(explanation)}, " if explanation else ""
            call = self.exec_cell(f"const r = await tools.update_plan({{{note}plan: [{body},]}});\ntext(r);", at)
        else:
            args: dict[str, Any] = {"plan": [{"step": s, "status": st} for s, st in steps]}
            if explanation:
                args["explanation"] = explanation
            call = self.tool("update_plan", at, arguments=args)
        self.tool_output(call, at, "Plan updated")

    # -- usage ------------------------------------------------------------------------------

    def tokens(self, n: int, at: Moment, *, limits: dict[str, Any] | None = None, count_event: bool = True) -> None:
        """One model response of *n* output tokens: ``token_usage_record`` then ``token_count``."""
        self.cumulative += n
        usage = {"input_tokens": 100, "output_tokens": n, "total_tokens": 100 + n}
        thread = {"input_tokens": 100, "output_tokens": self.cumulative, "total_tokens": 100 + self.cumulative}
        self.record(
            "token_usage_record",
            {"thread_id": self.session_id, "turn_id": self.turn_id, "usage": usage, "thread_token_usage": thread},
            at,
        )
        if count_event:
            self.event(
                "token_count",
                at,
                info={"total_token_usage": thread, "last_token_usage": usage},
                rate_limits=limits or {"limit_id": "codex", "primary": None, "secondary": None},
            )

    # -- subagents ----------------------------------------------------------------------------

    def spawn(
        self, child_id: str | None = None, *, nickname: str, at: Moment, cwd: str | None = None, role: str | None = None
    ) -> CodexSession:
        """A ``spawn_agent`` call and the child thread's own rollout."""
        child = self.store.session(child_id, cwd=cwd or "/", at=at, parent=self, nickname=nickname, role=role)
        self.tool("spawn_agent", at, arguments={"message": f"{nickname}: help"})
        return child


def write_lines(path: Path, lines: Iterable[bytes]) -> None:
    """Append raw lines to *path* (garbage, half-written records) for damage tests."""
    with open(path, "ab") as fh:
        for line in lines:
            fh.write(line)
