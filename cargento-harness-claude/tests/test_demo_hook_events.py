"""The Claude demo's force-push: in the live transcript, and as the PostToolUse body its hook posts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.demo import demo_env
from cargento.events.irreversible import match_command
from cargento.testing import make_context
from cargento_harness_claude import plugin
from cargento_harness_claude.demo import LEAD_S, PUSH, PUSH_AT_S, ClaudeDemo

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


def test_the_first_turn_pushes_once_and_hands_over_the_hook_body(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    sim = plugin.simulate(home=home, ctx=make_context(home, env=demo_env({}, home), now=START, window_s=None))
    assert sim is not None and sim.drain_events() == [], "nothing is posted at start"  # type: ignore[attr-defined]
    [live] = [p for p in sim.parts if isinstance(p, ClaudeDemo)]  # type: ignore[attr-defined]
    sim.step(START + timedelta(seconds=LEAD_S + PUSH_AT_S + 1))
    assert sim.drain_events() == [], "the hook posts once the command has run"  # type: ignore[attr-defined]
    sim.step(START + timedelta(seconds=LEAD_S + PUSH_AT_S + 2))
    [body] = sim.drain_events()  # type: ignore[attr-defined]
    assert sim.drain_events() == [], "each body is handed over once"  # type: ignore[attr-defined]
    assert body["hook_event_name"] == "PostToolUse" and body["tool_name"] == "Bash"
    assert body["session_id"] == live.live.session_id and body["transcript_path"] == str(live.live.path)
    assert body["tool_input"]["command"] == PUSH and match_command(PUSH)
    calls = [
        block
        for line in live.live.path.read_text().splitlines()
        if (record := json.loads(line)).get("type") == "assistant"
        for block in record["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    [pushed] = [c for c in calls if c["input"].get("command") == PUSH]
    assert pushed["id"] == body["tool_use_id"], "the body names the transcript's own tool call"
    for second in range(int(LEAD_S + PUSH_AT_S + 3), 400, 5):
        sim.step(START + timedelta(seconds=second))
    assert sim.drain_events() == [], "later turns push nothing"  # type: ignore[attr-defined]
