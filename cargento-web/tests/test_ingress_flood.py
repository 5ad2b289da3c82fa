"""An event flood: 10,000 events over loopback leave the board correct and the server answering."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from cargento.events.lanes import LOG_LIMIT
from cargento.statedir import CAPABILITY_HEADER
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

EVENTS = int(__import__("os").environ.get("FLOOD_EVENTS", "10000"))
SESSIONS = 40
CYCLE: tuple[tuple[str, dict[str, Any]], ...] = (
    ("UserPromptSubmit", {}),
    ("PostToolUse", {"tool_name": "Read", "tool_input": {"file_path": "/w/a.py"}}),
    ("PermissionRequest", {"tool_name": "Bash", "tool_input": {"command": "make test"}}),
    ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "make test"}}),
    ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "git push --force"}}),
    ("Stop", {}),
)
EXPECTED = {"UserPromptSubmit": "working", "PostToolUse": "working", "PermissionRequest": "needs_input", "Stop": "idle"}


def _now() -> datetime:
    return datetime.now(UTC)


def test_ten_thousand_events_leave_the_board_correct_and_the_server_responsive(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    sids = [f"flood-{n:04d}" for n in range(SESSIONS)]
    fake = FakeHarness("claude", [FakeSession(s, age_s=3600) for s in sids])
    hub = EventHub(clock=_now, state_dir=tmp_path / "state", notifier=MemoryNotifier(), capability="flood-cap")
    server = serve(builder_for([("claude", fake)], tmp_path), hub=hub)
    headers = {"Content-Type": "application/json", CAPABILITY_HEADER: "flood-cap"}

    health: list[int] = []
    stop = threading.Event()

    def probe() -> None:
        with httpx.Client(timeout=10) as c:
            while not stop.is_set():
                health.append(c.get(server.url + "/api/health").status_code)
                stop.wait(0.05)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    last: dict[str, str] = {}
    accepted = refused = 0
    with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
        for i in range(EVENTS):
            sid = sids[i % SESSIONS]
            step = (i // SESSIONS) % len(CYCLE)
            name, extra = CYCLE[step]
            if i % 250 == 0:
                # Interleaved garbage: refused without disturbing anything.
                assert client.post("/api/events/claude", content=b'{"hook_event_name": ').status_code == 400
                refused += 1
            body = {
                "session_id": sid,
                "hook_event_name": name,
                "prompt_id": f"{sid}-{i // (SESSIONS * len(CYCLE))}",
                **extra,
            }
            response = client.post("/api/events/claude", content=json.dumps(body).encode())
            assert response.status_code == 202, response.text
            accepted += 1
            last[sid] = name
    stop.set()
    prober.join(10)

    assert health and set(health) == {200}, "the server answered throughout"
    assert refused == len(range(0, EVENTS, 250))
    overlays = hub.overlays(_now())
    assert {sid: overlays[("claude", sid)].state for sid in sids} == {sid: EXPECTED[last[sid]] for sid in sids}
    doc = httpx.get(server.url + "/api/overlays", timeout=10).json()
    assert doc["events_received"] == accepted
    assert len(doc["lanes"]) == SESSIONS and all(len(lane["events"]) == LOG_LIMIT for lane in doc["lanes"])
    assert len(hub.irreversible_reports()) <= 1000
    assert all(len(hub.irreversible_reports("claude", sid)) == 20 for sid in sids)
    # The board built from the flood agrees with the overlays.
    board = httpx.get(server.url + "/api/data", timeout=10).json()
    assert {s["session_id"]: s["state"] for s in board["sessions"]} == {sid: EXPECTED[last[sid]] for sid in sids}
    hub.close()
