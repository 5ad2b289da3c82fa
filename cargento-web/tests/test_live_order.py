"""The live board publishes rows in the stable order, so every tab and /api/data agree."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from cargento.testing.fakes import FakeHarness, FakeSession


def test_a_newer_write_does_not_move_a_row_of_the_same_state(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    fake = FakeHarness("fake", [FakeSession("old", age_s=30, turn="open"), FakeSession("new", age_s=5, turn="open")])
    server = serve(builder_for([("fake", fake)], tmp_path))

    def order() -> list[tuple[str, str]]:
        time.sleep(1.1)  # past the reuse of a just-built board: every call is a new build
        doc = httpx.get(server.url + "/api/data").json()
        return [(s["session_id"], s["state"]) for s in doc["sessions"]]

    assert order() == [("new", "working"), ("old", "working")]  # core's order on first sight
    fake.sessions["old"].age_s = 1  # "old" writes last: core would now put it first
    fake.sessions["new"].age_s = 20
    assert order() == [("new", "working"), ("old", "working")]
    fake.sessions["new"].turn = "ended"  # a state change is what moves a row
    fake.sessions["new"].age_s = 200
    assert order() == [("old", "working"), ("new", "idle")]
