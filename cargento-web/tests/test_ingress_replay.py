"""Replay the recorded hook payloads through the real forwarders into a real server.

Each recorded invocation (``testdata/captures``) is piped, in order, into the forwarder a user
would have installed (``python -m cargento.forwarders.event_hook <harness>``, the
``notify_hook`` for Claude's Notification, ``statusline_hook`` for Antigravity's status
line), as a separate process, against a uvicorn serving the app with the real event hub.
Only the events the bundled hook files register are replayed (the others would never be
sent). The hub's clock follows the recording, so deadlines and cooldowns run on its time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento.events.hooks_cmd import declared_targets
from cargento.plugins import load_registry
from cargento.testing.fakes import FakeHarness
from cargento.testing.testdata import require_captures_root
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

CAPTURES = require_captures_root()

_TARGETS = {t.name: t.events for t in declared_targets(load_registry(env={}), {"HOME": "/nonexistent"}, None)}
#: The events ``cargento hooks install`` registers for each harness, as its plugin declares.
CLAUDE_EVENTS = _TARGETS["claude-events"]
CODEX_EVENTS = _TARGETS["codex"]
GEMINI_EVENTS = _TARGETS["gemini"]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class Replay:
    def __init__(self, server: Any, hub: EventHub, clock: Clock, env: dict[str, str]) -> None:
        self.server = server
        self.hub = hub
        self.clock = clock
        self.env = env

    def run(self, module: str, args: list[str], payload: dict[str, Any], at: float) -> None:
        self.clock.now = datetime.fromtimestamp(at, UTC)
        done = subprocess.run(
            [sys.executable, "-m", f"cargento.forwarders.{module}", *args],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=60,
            env=self.env,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done

    def state(self, harness: str, sid: str) -> str | None:
        overlay = self.hub.overlays(self.clock()).get((harness, sid))
        return overlay.state if overlay is not None else None


@pytest.fixture
def replay(serve: Any, builder_for: Any, tmp_path: Path) -> Iterator[Replay]:
    clock = Clock()
    notifier = MemoryNotifier()
    hub = EventHub(clock=clock, state_dir=tmp_path / "cargento", notifier=notifier, capability="replay-capability")
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path, clock=clock), hub=hub)
    state_dir = tmp_path / "cargento"
    state_dir.mkdir(exist_ok=True)
    (state_dir / f"cargento-{server.port}.json").write_text(
        json.dumps({"pid": os.getpid(), "port": server.port, "capability": hub.capability})
    )
    env = {**os.environ, "CARGENTO_HOME": str(state_dir), "CARGENTO_PORT": str(server.port)}
    yield Replay(server, hub, clock, env)
    hub.close()


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (CAPTURES / "full" / name).read_text().splitlines() if line.strip()]


def test_claude_permission_question_compact_exit(replay: Replay) -> None:
    sid = "60c7ee03-4f92-45de-9def-6a9bd1350df5"
    seen: list[tuple[str, str | None]] = []
    for line in _lines("claude-code-2.1.332/D-tui-permission-ask-compact-exit.jsonl"):
        event = line["event"]
        if event == "Notification":
            replay.run("notify_hook", [], line["payload"], line["at"])  # path 2
        elif event in CLAUDE_EVENTS:
            replay.run("event_hook", ["claude"], line["payload"], line["at"])  # path 3
        else:
            continue
        seen.append((event, replay.state("claude", sid)))
    assert seen == [
        ("SessionStart", None),
        ("UserPromptSubmit", "working"),
        ("PermissionRequest", "needs_input"),
        ("Notification", "needs_input"),
        ("PostToolUse", "working"),
        ("Stop", "idle"),
        ("Notification", "idle"),  # idle_prompt: pops, never blocks
        ("UserPromptSubmit", "working"),
        ("PermissionRequest", "needs_input"),
        ("Notification", "needs_input"),
        ("PostToolUse", "working"),
        ("Stop", "idle"),
        ("Notification", "idle"),
        ("SubagentStop", "idle"),
        ("SubagentStop", "idle"),
        ("SessionStart", "idle"),  # source compact: no claim
        ("PostCompact", "idle"),
        ("SessionEnd", "idle"),  # retired; the end itself keeps it reading over
    ]
    assert replay.hub.session_end("claude", sid) is not None
    doc = httpx.get(replay.server.url + "/api/overlays").json()
    lane = next(lane for lane in doc["lanes"] if lane["session_id"] == sid)
    assert [e["name"] for e in lane["events"]][:3] == ["SessionStart", "UserPromptSubmit", "PermissionRequest"]
    assert all(e["delivery_ms"] is not None for e in lane["events"])
    # The AskUserQuestion gate shows the question; notifications: two gates and two idle nudges.
    assert replay.hub.alerts.drain()
    kinds = [d.kind for d in replay.hub.deliveries_for("claude", sid)]
    assert sorted(kinds) == ["gate", "gate", "idle", "idle"]


def test_claude_async_stop_before_post_tool_use_stays_idle(replay: Replay) -> None:
    sid = "4482b97c"
    states: dict[str, str | None] = {}
    for line in _lines("claude-code-2.1.332/X-tui-config-model-dirs-cwd-command.jsonl"):
        if line["event"] in CLAUDE_EVENTS:
            replay.run("event_hook", ["claude"], line["payload"], line["at"])
            sid = line["payload"]["session_id"]
            states[line["event"]] = replay.state("claude", sid)
            if line["event"] == "PostToolUse":
                break
    # X's Bash turn: Stop landed 30 ms before that turn's PostToolUse (async hooks).
    assert states["Stop"] == "idle" and states["PostToolUse"] == "idle"


def test_codex_subagent_approval_compact_interrupt_exit(replay: Replay) -> None:
    seen: list[tuple[str, str | None]] = []
    sid = None
    for line in _lines("codex-0.171.0/H-tui-subagent-approval-compact-interrupt-exit.jsonl"):
        if line["event"] not in CODEX_EVENTS:
            continue
        sid = sid or line["payload"]["session_id"]
        replay.run("event_hook", ["codex"], line["payload"], line["at"])
        seen.append((line["event"], replay.state("codex", sid)))
    assert seen == [
        ("SessionStart", None),
        ("UserPromptSubmit", "working"),
        ("PostToolUse", "working"),
        ("SubagentStart", "working"),
        ("UserPromptSubmit", "working"),  # the child's own prompt: no claim on the parent
        ("SubagentStop", "working"),
        ("PostToolUse", "working"),
        ("Stop", "idle"),
        ("UserPromptSubmit", "working"),
        ("PermissionRequest", "needs_input"),
        ("PostToolUse", "working"),  # the only mark that the approval was answered
        ("Stop", "idle"),
        ("UserPromptSubmit", "working"),
        ("Stop", "idle"),
        ("PostCompact", "idle"),
        ("SessionStart", "idle"),
        ("UserPromptSubmit", "working"),
        ("Interrupt", "idle"),  # an interrupted turn ends with Interrupt, not Stop
        ("SessionEnd", "idle"),
    ]
    assert replay.hub.alerts.drain()
    assert [d.kind for d in replay.hub.deliveries_for("codex", sid or "")] == ["gate"]


def test_codex_exec_with_a_subagent(replay: Replay) -> None:
    lines = [line for line in _lines("codex-0.171.0/C-subagent-exec.jsonl") if line["event"] in CODEX_EVENTS]
    sid = lines[0]["payload"]["session_id"]
    for line in lines[:-1]:
        replay.run("event_hook", ["codex"], line["payload"], line["at"])
    assert replay.state("codex", sid) == "idle" and replay.hub.turn_ended_at("codex", sid) is not None


def test_gemini_approval_and_double_session_end(replay: Replay) -> None:
    seen: list[tuple[str, str | None]] = []
    sid = None
    for line in _lines("gemini-cli-0.61.0/D-tui-approval-quit.jsonl"):
        if line["event"] not in GEMINI_EVENTS:
            continue
        sid = sid or line["payload"]["session_id"]
        replay.run("event_hook", ["gemini"], line["payload"], line["at"])
        seen.append((line["event"], replay.state("gemini", sid)))
    assert seen == [
        ("SessionStart", None),
        ("BeforeAgent", "working"),
        ("Notification", "needs_input"),  # ToolPermission at the approval prompt
        ("AfterTool", "working"),
        ("AfterAgent", "idle"),
        ("SessionEnd", "idle"),
        ("SessionEnd", "idle"),  # fired twice on /quit: idempotent
    ]


def test_gemini_subagent_tool_calls_reuse_the_parent_session(replay: Replay) -> None:
    lines = [line for line in _lines("gemini-cli-0.61.0/C-subagent-yolo.jsonl") if line["event"] in GEMINI_EVENTS]
    sid = lines[0]["payload"]["session_id"]
    for line in lines:
        replay.run("event_hook", ["gemini"], line["payload"], line["at"])
        if line["event"] == "AfterAgent":
            assert replay.state("gemini", sid) == "idle"


def _antigravity_pushes() -> list[dict[str, Any]]:
    """The status-line record has shapes, not values: rebuild each push from its key set,
    with a conversation id where the recording says one was present."""
    path = CAPTURES / "antigravity" / "statusline-macos.jsonl"
    pushes = []
    conversation = "4c1d9e2a-7b3f-4d5e-8a6b-0c1d2e3f4a5b"
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("capture") != "agy-shape":
            continue
        has_id = record["id_verdicts"]["conversation_id"] is not None
        push: dict[str, Any] = {key: "x" for key in record["keys"]}
        push.update(
            agent_state=record["agent_state"],
            conversation_id=conversation if has_id else "",
            session_id=conversation if has_id else "",
            email="person@example.com",
            transcript_path="/Users/p/t.pb",
        )
        if record["quota_keys"]:
            push["quota"] = {
                k: {"remaining_fraction": 0.9, "reset_time": "2026-08-01T15:00:00Z"} for k in record["quota_keys"]
            }
        else:
            push.pop("quota", None)
        pushes.append(push)
    return pushes


def test_antigravity_status_line(replay: Replay, tmp_path: Path) -> None:
    pushes = _antigravity_pushes()
    conversation = next(p["conversation_id"] for p in pushes if p["conversation_id"])
    start = 1785938000.0
    seen = []
    for i, push in enumerate(pushes):
        replay.run("statusline_hook", [], push, start + i)
        seen.append((push["agent_state"], bool(push["conversation_id"]), replay.state("antigravity", conversation)))
    assert seen[0] == ("authenticating", False, None)
    assert all(state is None for s, has, state in seen if not has), "no conversation yet: nothing to attribute"
    assert [state for s, has, state in seen if has and s == "working"] == ["working"] * 5
    assert seen[-1] == ("idle", True, "idle")
    assert replay.hub.turn_ended_at("antigravity", conversation) is not None
    doc = httpx.get(replay.server.url + "/api/overlays").json()
    lane = next(lane for lane in doc["lanes"] if lane["session_id"] == conversation)
    assert len(lane["events"]) == 2, "the memo posts once per change: working once, then idle"
    quota = replay.hub.pushed_quota("antigravity")
    assert quota is not None and set(quota[1]) == {"3p-5h", "3p-weekly", "gemini-5h", "gemini-weekly"}
    text = json.dumps(doc)
    assert "person@example.com" not in text and "/Users/p/t.pb" not in text
