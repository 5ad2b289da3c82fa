"""The history through HTTP: it survives a restart, names its window, and --no-history keeps
and reads nothing."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from cargento.cli import Options
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.history.store import HISTORY_FILE

FEATURE = "cargento_web.history"


def _history(server: Any, sid: str, wanted: int = 1) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        httpx.get(server.url + "/api/data", timeout=5)  # a board build is what the history watches
        body: dict[str, Any] = httpx.get(server.url + f"/api/history?harness=fake&sid={sid}", timeout=5).json()
        if len(body["observations"]) >= wanted or time.monotonic() > deadline:
            return body
        time.sleep(0.1)


def test_what_one_run_observed_is_served_by_the_next(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=5)]))], tmp_path)
    first = serve(builder, features=[FEATURE], state_dir=state)
    seen = _history(first, "s1")
    assert [o["kind"] for o in seen["observations"]] == ["state"]
    assert seen["observations"][0]["source"] == "store"
    first.stop()
    assert (state / HISTORY_FILE).exists(), "closing writes what is pending"
    builder2 = builder_for([("fake", FakeHarness("fake", []))], tmp_path)
    second = serve(builder2, features=[FEATURE], state_dir=state)
    again = _history(second, "s1")
    assert again["observations"] == seen["observations"]
    assert again["window"]["first"] == seen["observations"][0]["at"]
    assert again["window"]["run_started_at"] > again["window"]["first"], "the window reaches before this run"


def test_no_history_neither_reads_nor_writes(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / HISTORY_FILE).write_bytes(b"{not json")
    builder = builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=5)]))], tmp_path)
    server = serve(builder, features=[FEATURE], state_dir=state, options=Options(no_history=True))
    body = _history(server, "s1")
    assert body["on"] is False and body["observations"] == []
    server.stop()
    assert (state / HISTORY_FILE).read_bytes() == b"{not json", "not read (so not set aside), not written"
    assert [p.name for p in state.iterdir()] == [HISTORY_FILE]


def test_an_unreadable_history_is_named_as_reset(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / HISTORY_FILE).write_bytes(b"{half a wri")
    builder = builder_for([("fake", FakeHarness("fake", []))], tmp_path)
    server = serve(builder, features=[FEATURE], state_dir=state)
    assert server.extensions is not None
    stores = server.extensions.own_stores()
    assert [(s.name, s.status) for s in stores] == [(HISTORY_FILE, "reset")]
    assert stores[0].detail is not None and "kept as" in stores[0].detail
    assert stores[0].at is not None, "the header says when"
    page = httpx.get(server.url + "/", timeout=5).text
    assert "could not be read whole" in page, "the header names the reset"


def test_a_replay_adds_nothing_to_the_history_or_the_semantic_history(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    """A replay (--as-of) shows a moment already past: its boards are not observations of this
    server, so neither the local history nor the cockpit's semantic history records them, and
    the history says so; what earlier runs recorded is still served."""
    from datetime import UTC, datetime

    from cargento_web.cockpit.semantic import SEMANTIC_FILE

    state = tmp_path / "state"
    live = serve(
        builder_for([("fake", FakeHarness("fake", [FakeSession("s1", age_s=5)]))], tmp_path),
        features=[FEATURE],
        state_dir=state,
    )
    recorded = _history(live, "s1")["observations"]
    assert len(recorded) == 1
    live.stop()
    before = (state / HISTORY_FILE).read_bytes()
    replay = serve(
        builder_for(
            [("fake", FakeHarness("fake", [FakeSession("s1", age_s=5), FakeSession("s2", age_s=5)]))], tmp_path
        ),
        features=[FEATURE, "cargento_web.cockpit"],
        state_dir=state,
        options=Options(as_of=datetime.now(UTC)),
    )
    for _ in range(3):
        assert any(s["session_id"] == "s2" for s in httpx.get(replay.url + "/api/data", timeout=5).json()["sessions"])
        time.sleep(0.2)
    body = httpx.get(replay.url + "/api/history?harness=fake&sid=s2", timeout=5).json()
    assert body["observations"] == [] and body["replay"] is True
    assert _history(replay, "s1")["observations"] == recorded, "what was observed live is still served"
    replay.stop()
    assert (state / HISTORY_FILE).read_bytes() == before
    assert not (state / SEMANTIC_FILE).exists()
