"""``GET /api/reports``: every irreversible-command report of the run, for Attention."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.app import create_app
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier
from cargento_web.settings import Settings


@pytest.fixture
def hubs() -> Iterator[list[EventHub]]:
    made: list[EventHub] = []
    yield made
    for hub in made:
        hub.close()


def client_for(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub], **kw: Any
) -> tuple[Any, EventHub]:
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier(), **kw)
    hubs.append(hub)
    builder = builder_for([("claude", FakeHarness("claude", [FakeSession("s1")]))], tmp_path)
    return make_client(create_app(builder=builder, settings=Settings(port=4553), hub=hub)), hub


def test_reports_of_every_session_name_their_session(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    client, hub = client_for(make_client, builder_for, tmp_path, hubs)
    for sid, command in (("s1", "git reset --hard HEAD~3"), ("s2", "git push --force origin main")):
        hub.ingest(
            "claude",
            {
                "session_id": sid,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command},
            },
        )
    response = client.get("/api/reports")
    assert response.status_code == 200 and response.headers["cache-control"] == "no-store"
    doc = response.json()
    assert doc["enabled"] is True and "not proof" in doc["note"]
    got = {(r["harness"], r["session_id"], r["command"]) for r in doc["reports"]}
    assert got == {("claude", "s1", "git reset --hard HEAD~3"), ("claude", "s2", "git push --force origin main")}
    assert all(r["shape_words"] and r["at"] for r in doc["reports"])


def test_reports_say_why_there_are_none(
    make_client: Any, builder_for: Any, tmp_path: Path, hubs: list[EventHub]
) -> None:
    client, _ = client_for(make_client, builder_for, tmp_path, hubs, events=False)
    doc = client.get("/api/reports").json()
    assert doc["enabled"] is False and "(--no-events)" in doc["reason"] and doc["reports"] == []
    bare = make_client(create_app(builder=builder_for([], tmp_path), settings=Settings(port=4553), hub=None)).get(
        "/api/reports"
    )
    assert bare.status_code == 404 and "no event hub" in bare.json()["error"]
