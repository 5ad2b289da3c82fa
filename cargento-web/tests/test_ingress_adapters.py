"""The JavaScript adapters (OpenCode's passive plugin, Pi's extension) run under Node against
a real server, with stand-ins for the host APIs they are loaded by."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from cargento.testing.fakes import FakeHarness
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

NODE = shutil.which("node")
#: .ci/run installs Node.js, so under CI a missing node fails the tests instead of skipping them.
pytestmark = pytest.mark.skipif(NODE is None and not os.environ.get("CI"), reason="node is not installed")


def _now() -> datetime:
    return datetime.now(UTC)


class Lane:
    def __init__(self, hub: EventHub, env: dict[str, str], tmp: Path) -> None:
        self.hub = hub
        self.env = env
        self.tmp = tmp

    def state(self, harness: str, sid: str) -> str | None:
        overlay = self.hub.overlays(_now()).get((harness, sid))
        return overlay.state if overlay else None

    def wait_for(self, harness: str, sid: str, wanted: str | None, timeout_s: float = 5.0) -> str | None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.state(harness, sid) == wanted:
                return wanted
            time.sleep(0.02)
        return self.state(harness, sid)


@pytest.fixture
def lane(serve: Any, builder_for: Any, tmp_path: Path) -> Iterator[Lane]:
    hub = EventHub(clock=_now, state_dir=tmp_path / "cargento", notifier=MemoryNotifier(), capability="js-capability")
    server = serve(builder_for([("claude", FakeHarness("claude", []))], tmp_path), hub=hub)
    home = tmp_path / "cargento"
    home.mkdir(exist_ok=True)
    (home / f"cargento-{server.port}.json").write_text(json.dumps({"port": server.port, "capability": hub.capability}))
    env = {**os.environ, "CARGENTO_HOME": str(home), "CARGENTO_PORT": str(server.port)}
    yield Lane(hub, env, tmp_path)
    hub.close()


def _module(package: str, name: str, dest: Path) -> Path:
    pytest.importorskip(package)
    target = dest / (Path(name).stem + ".mjs")
    target.write_text(resources.files(package).joinpath("hooks", name).read_text())
    return target


OPENCODE_DRIVER = """
import { CargentoPlugin } from "./opencode_plugin.mjs";
const client = { session: { get: async ({ path }) => {
  if (path.id === "ses_broken") throw new Error("no such session");
  return { data: path.id.startsWith("ses_child") ? { id: path.id, parentID: "ses_parent" } : { id: path.id } };
} } };
const hooks = await CargentoPlugin({ client, directory: "/w", worktree: "/w", project: {}, $: null });
for (const event of JSON.parse(process.argv[2])) await hooks.event({ event });
"""


def _opencode(lane: Lane, events: list[dict[str, Any]]) -> subprocess.CompletedProcess[bytes]:
    _module("cargento_harness_opencode", "opencode_plugin.js", lane.tmp)
    driver = lane.tmp / "opencode_driver.mjs"
    driver.write_text(OPENCODE_DRIVER)
    assert NODE is not None
    return subprocess.run(
        [NODE, str(driver), json.dumps(events)], capture_output=True, timeout=60, env=lane.env, cwd=lane.tmp
    )


def test_opencode_parent_permission_asked_then_replied(lane: Lane) -> None:
    asked = {
        "type": "permission.asked",
        "properties": {
            "id": "per_1",
            "sessionID": "ses_parent",
            "permission": "bash",
            "patterns": ["rm -rf build"],
            "metadata": {},
            "always": [],
        },
    }
    done = _opencode(lane, [asked])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert lane.state("opencode", "ses_parent") == "needs_input"
    gate = lane.hub.overlays(_now())[("opencode", "ses_parent")].gate
    assert gate is not None and gate.text is None, "what was asked is never sent"
    replied = {
        "type": "permission.replied",
        "properties": {"sessionID": "ses_parent", "requestID": "per_1", "reply": "once"},
    }
    done = _opencode(lane, [asked, replied])
    assert done.returncode == 0
    assert lane.state("opencode", "ses_parent") is None


def test_opencode_child_and_unknown_sessions_stay_unclaimed(lane: Lane) -> None:
    events: list[dict[str, Any]] = [
        {"type": "permission.asked", "properties": {"id": "per_c", "sessionID": "ses_child_1"}},
        {"type": "permission.asked", "properties": {"id": "per_x", "sessionID": "ses_broken"}},
        {"type": "permission.replied", "properties": {"sessionID": "ses_other", "requestID": "per_unseen"}},
        {"type": "question.asked", "properties": {"id": "q", "sessionID": "ses_parent"}},
        {"type": "session.idle", "properties": {"sessionID": "ses_parent"}},
        {"nonsense": True},
    ]
    done = _opencode(lane, events)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert lane.hub.overlays(_now()) == {}
    assert lane.hub.diagnostics()["events_received"] == 0


def test_opencode_with_no_dashboard_stays_silent(lane: Lane) -> None:
    lane.env["CARGENTO_HOME"] = str(lane.tmp / "nowhere")
    done = _opencode(lane, [{"type": "permission.asked", "properties": {"id": "per_1", "sessionID": "ses_parent"}}])
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert lane.hub.diagnostics()["events_received"] == 0


PI_DRIVER = """
import cargento from "./pi_extension.mjs";
import { createInterface } from "node:readline";
const [sessionFile, hasUI] = [process.argv[2], process.argv[3] === "ui"];
const handlers = {};
const pi = { on: (name, fn) => { (handlers[name] ||= []).push(fn); } };
cargento(pi);
let release;
const answered = new Promise((resolve) => { release = resolve; });
const ui = {
  confirm: async (title, message) => { await answered; return true; },
  select: async () => "a", input: async () => "typed", editor: async () => "text", custom: async () => undefined,
  notify: () => {},
};
const ctx = { ui, hasUI, sessionManager: { getSessionId: () => "pi-session-1", getSessionFile: () => sessionFile } };
for (const fn of handlers.session_start) await fn({ type: "session_start" }, ctx);
for (const fn of handlers.turn_start) await fn({ type: "turn_start" }, ctx);
// Another extension asks the person something through the shared UI context.
const pending = ctx.ui.confirm("Delete the branch?", "This cannot be undone");
console.error("open");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) { if (line === "answer") { release(); break; } }
const result = await pending;
await new Promise((r) => setTimeout(r, 300));
console.error(result ? "answered" : "refused");
"""


def _pi(lane: Lane, session_file: Path, mode: str = "ui") -> subprocess.Popen[bytes]:
    _module("cargento_harness_pi", "pi_extension.js", lane.tmp)
    driver = lane.tmp / "pi_driver.mjs"
    driver.write_text(PI_DRIVER)
    assert NODE is not None
    return subprocess.Popen(
        [NODE, str(driver), str(session_file), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=lane.env,
        cwd=lane.tmp,
    )


def _answer(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    assert proc.stderr is not None
    out, err = proc.communicate(b"answer\n", timeout=30)
    return out, err


def test_pi_extension_prompt_opens_and_closes_a_wait(lane: Lane) -> None:
    session_file = lane.tmp / "2026-11-30T12-00-00_pi-session-1.jsonl"
    session_file.write_text('{"type":"session","id":"pi-session-1"}\n')
    proc = _pi(lane, session_file)
    assert proc.stderr is not None and proc.stderr.readline().strip() == b"open"
    assert lane.wait_for("pi", "pi-session-1", "needs_input") == "needs_input"
    gate = lane.hub.overlays(_now())[("pi", "pi-session-1")].gate
    assert gate is not None and gate.text == "an extension confirm prompt is open"
    assert "Delete" not in json.dumps(lane.hub.diagnostics())
    out, err = _answer(proc)
    assert proc.returncode == 0 and out == b"" and err.strip() == b"answered", (
        "the prompt's answer reaches its caller unchanged"
    )
    assert lane.wait_for("pi", "pi-session-1", None) is None


def test_pi_session_not_yet_persisted_is_outside_coverage(lane: Lane) -> None:
    proc = _pi(lane, lane.tmp / "not-written-yet.jsonl")
    assert proc.stderr is not None and proc.stderr.readline().strip() == b"open"
    time.sleep(0.5)
    assert lane.state("pi", "pi-session-1") is None
    _answer(proc)
    assert proc.returncode == 0 and lane.hub.diagnostics()["events_received"] == 0


def test_pi_without_a_ui_wraps_nothing(lane: Lane) -> None:
    session_file = lane.tmp / "s.jsonl"
    session_file.write_text("{}\n")
    proc = _pi(lane, session_file, mode="headless")
    assert proc.stderr is not None and proc.stderr.readline().strip() == b"open"
    time.sleep(0.5)
    _answer(proc)
    assert proc.returncode == 0 and lane.hub.diagnostics()["events_received"] == 0
