"""Unasked checks (``--unasked-readings``): on an observed state change, a session whose words
carry a typed goal is read against the goal alone; a departure is raised into
``cargento-departures.json`` and published, nothing is said for a clean check beyond the fact
that it ran, a session with lines and no goal is never checked, and the per-session limit stops
further checks."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from cargento.cli import Options
from cargento_web.observer import unasked
from cargento_web.observer.departures import DEPARTURES_FILE


def _kit() -> Any:
    if "observer_kit" in sys.modules:
        return sys.modules["observer_kit"]
    spec = importlib.util.spec_from_file_location("observer_kit", Path(__file__).with_name("observer_kit.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["observer_kit"] = module
    spec.loader.exec_module(module)
    return module


kit = _kit()


def _annotate(url: str, body: dict[str, Any]) -> None:
    answer = httpx.post(
        url + "/api/annotate",
        headers={"Origin": url, "Content-Type": "application/json"},
        content=json.dumps(body),
        timeout=10,
    )
    assert answer.json()["outcome"] == "stored", answer.text


def test_a_state_change_checks_the_typed_goal_alone_and_raises_a_departure(
    serve: Any, builder_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    monkeypatch.setattr(unasked, "PER_SESSION", 1)
    store = ClaudeStore(tmp_path / "home")
    old = time.time() - 3600
    goal_session = store.session(kit.SID)
    goal_session.prompt("make the retry test pass", old)
    lines_only = store.session(kit.OTHER)
    lines_only.prompt("write the notes", old)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    kit.set_mode(bin_dir, "departs")
    state = tmp_path / "state"
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=Options(unasked_readings=True),
        state_dir=state,
    )
    assert kit.observer_doc(server)["unasked"]["on"] is True
    _annotate(
        server.url,
        {"harness": "claude", "sid": kit.SID, "goal": "Fix the retry test", "lines": ["never read by this lane"]},
    )
    _annotate(server.url, {"harness": "claude", "sid": kit.OTHER, "lines": ["notes list every change"]})
    time.sleep(1.2)
    kit.observer_doc(server)  # the idle baseline is on record
    goal_session.prompt("now also add a changelog", time.time())
    lines_only.prompt("and push it", time.time())
    doc = kit.wait_for(server, lambda d: bool(kit.session_of(d).get("unasked")))
    raised = kit.session_of(doc)["unasked"][0]
    assert raised["goal"] == "Fix the retry test" and raised["revision"] == 1
    assert kit.session_of(doc)["departed_at"] == raised["at"], "an unasked raise is a departure on record"
    prompt = kit.calls(bin_dir, "claude")[0]["prompt"]
    assert "1. Fix the retry test" in prompt and "never read by this lane" not in prompt, "the goal alone"
    assert len(kit.calls(bin_dir, "claude")) == 1, "a session with lines and no goal is not checked"
    stored = json.loads((state / DEPARTURES_FILE).read_text())
    assert [c["found"] for c in stored["checks"]] == ["departs"]
    kit.set_mode(bin_dir, "consistent")
    lane = server.extensions.items[1].unasked
    board = server.app.state.live.latest()

    def flipped(state: str) -> Any:
        return attrs.evolve(board, sessions=tuple(attrs.evolve(x, state=state) for x in board.sessions))

    lane.on_board(flipped("idle"))
    time.sleep(1.5)
    assert len(kit.calls(bin_dir, "claude")) == 1, "the per-session limit stops further checks"
    assert kit.observer_doc(server)["unasked"]["limits"]["sessions"][f"claude/{kit.SID}"] == 1
    monkeypatch.setattr(unasked, "PER_SESSION", 5)
    lane.on_board(flipped("needs_input"))  # a change whatever the live boards last said
    kit.wait_for(server, lambda d: kit.session_of(d).get("checks", 0) >= 2)
    assert len(kit.calls(bin_dir, "claude")) >= 2, "with room under the limit a change is checked"
    assert len(kit.session_of(kit.observer_doc(server))["unasked"]) == 1, "a clean check adds no raise"


def test_a_clean_check_raises_nothing_but_is_recorded_as_having_run(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    session = store.session(kit.SID)
    session.prompt("make the retry test pass", time.time() - 3600)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=Options(unasked_readings=True),
        state_dir=tmp_path / "state",
    )
    _annotate(server.url, {"harness": "claude", "sid": kit.SID, "goal": "Fix the retry test"})
    time.sleep(1.2)
    kit.observer_doc(server)
    session.prompt("keep going", time.time())
    doc = kit.wait_for(server, lambda d: kit.session_of(d).get("checks", 0) >= 1)
    record = kit.session_of(doc)
    assert record["unasked"] == [] and record["departed_at"] is None, "never a reassurance, never a mark"
    assert record["last_check"]["found"] == "nothing raised"


def test_off_by_default(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from cargento_harness_claude import plugin as claude

    server = serve(
        builder_for([("claude", claude)], kit.claude_home(tmp_path)),
        features=["cargento_web.observer"],
        state_dir=tmp_path / "state",
    )
    assert kit.observer_doc(server)["unasked"]["on"] is False
    assert not (tmp_path / "state" / DEPARTURES_FILE).exists()


def test_an_unasked_raise_is_alerted_and_what_became_of_it_is_published(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore
    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    store = ClaudeStore(tmp_path / "home")
    session = store.session(kit.SID)
    session.prompt("make the retry test pass", time.time() - 3600)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    kit.set_mode(bin_dir, "departs")
    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "hubstate", notifier=notifier)
    try:
        server = serve(
            builder_for([("claude", claude)], store.home, env={"PATH": str(bin_dir)}),
            hub=hub,
            features=["cargento_web.annotations", "cargento_web.observer"],
            options=Options(unasked_readings=True),
            state_dir=tmp_path / "state",
        )
        _annotate(server.url, {"harness": "claude", "sid": kit.SID, "goal": "Fix the retry test"})
        time.sleep(1.2)
        kit.observer_doc(server)
        session.prompt("keep going", time.time())
        doc = kit.wait_for(
            server, lambda d: bool(kit.session_of(d).get("unasked") and kit.session_of(d)["unasked"][0].get("delivery"))
        )
        raised = kit.session_of(doc)["unasked"][0]
        assert raised["alert"] == "raised"
        assert raised["delivery"]["outcome"] == "handed-over"
        assert notifier.sent and "may have drifted" in notifier.sent[0][0]
    finally:
        hub.close()


def test_inside_quiet_hours_no_unasked_check_starts(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    store.session(kit.SID).prompt("make the retry test pass", time.time() - 3600)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=Options(unasked_readings=True),
        state_dir=tmp_path / "state",
    )
    _annotate(server.url, {"harness": "claude", "sid": kit.SID, "goal": "Fix the retry test"})
    kit.observer_doc(server)
    lane = server.extensions.items[1].unasked
    board = server.app.state.live.latest()

    def flipped(state: str) -> Any:
        return attrs.evolve(board, sessions=tuple(attrs.evolve(x, state=state) for x in board.sessions))

    lane.quiet = lambda: True
    lane.on_board(flipped("idle"))
    lane.on_board(flipped("needs_input"))
    time.sleep(1.5)
    assert kit.calls(bin_dir, "claude") == [], "quiet hours hold unasked checks"
    lane.quiet = lambda: False
    lane.on_board(flipped("working"))
    kit.wait_for(server, lambda d: kit.session_of(d).get("checks", 0) >= 1)


def test_the_quiet_window_of_the_run_holds_unasked_checks(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from datetime import datetime, timedelta

    from cargento_harness_claude import plugin as claude

    now = datetime.now().astimezone()
    around = f"{(now - timedelta(hours=1)):%H:%M}-{(now + timedelta(hours=1)):%H:%M}"
    away = f"{(now + timedelta(hours=2)):%H:%M}-{(now + timedelta(hours=3)):%H:%M}"
    for window, quiet in ((around, True), (away, False)):
        server = serve(
            builder_for(
                [("claude", claude)],
                kit.claude_home(tmp_path / window.replace(":", "")),
                env={"PATH": str(tmp_path / "bin")},
            ),
            features=["cargento_web.observer"],
            options=Options(unasked_readings=True, quiet_hours=window),
            state_dir=tmp_path / window.replace(":", "") / "state",
        )
        assert server.extensions.items[0].unasked.quiet() is quiet, window


def test_a_goal_adopted_from_your_prompt_never_enables_an_unasked_check(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    old = time.time() - 3600
    store.session(kit.SID).prompt("make the retry test pass", old)
    store.session(kit.OTHER).prompt("write the notes", old)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(bin_dir)}),
        features=["cargento_web.annotations", "cargento_web.observer"],
        options=Options(unasked_readings=True, observer_model=True),
        state_dir=tmp_path / "state",
    )
    _annotate(
        server.url, {"harness": "claude", "sid": kit.SID, "goal": "make the retry test pass", "goal_source": "prompt"}
    )
    _annotate(server.url, {"harness": "claude", "sid": kit.OTHER, "goal": "Write the release notes"})
    kit.observer_doc(server)
    lane = server.extensions.items[1].unasked
    board = server.app.state.live.latest()
    lane.on_board(board)  # the baseline
    lane.on_board(attrs.evolve(board, sessions=tuple(attrs.evolve(x, state="needs_input") for x in board.sessions)))
    kit.wait_for(server, lambda d: kit.session_of(d, kit.OTHER).get("checks", 0) >= 1)
    time.sleep(1.0)
    sent = kit.calls(bin_dir, "claude")
    assert sent and all("1. Write the release notes" in c["prompt"] for c in sent), "only the typed goal is checked"
    assert kit.session_of(kit.observer_doc(server)).get("checks", 0) == 0, "a goal from your prompt is not"
