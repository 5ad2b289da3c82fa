"""Marking a session handled through HTTP: the mark, its lift on a new write (a subagent's
included), the restore, the published counts, the store, and --no-dismiss."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
from cargento.cli import Options
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.dismissals.store import DISMISSALS_FILE

FEATURE = "cargento_web.dismissals"


def post(server: Any, body: object) -> httpx.Response:
    return httpx.post(
        server.url + "/api/dismiss",
        content=orjson.dumps(body),
        headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
        timeout=5,
    )


def wait_doc(server: Any, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    doc: dict[str, Any] = {}
    while time.monotonic() < deadline:
        doc = httpx.get(server.url + "/api/data", timeout=5).json()
        if predicate(doc):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"never true: {doc.get('dismissals')}")


def test_dismiss_restore_and_lift_on_a_new_write(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    past = datetime.now(UTC) - timedelta(minutes=5)
    a = FakeSession("a", at=past)
    b = FakeSession("b", at=past)
    server = serve(builder_for([("fake", FakeHarness("fake", [a, b]))], tmp_path), features=[FEATURE], state_dir=state)
    wait_doc(server, lambda d: d["dismissals"]["counts"] is not None and d["dismissals"]["counts"]["sessions"] == 2)
    refused = httpx.post(
        server.url + "/api/dismiss",
        content=b'{"harness":"fake","sid":"a"}',
        headers={"Origin": "http://evil.example"},
        timeout=5,
    )
    assert refused.status_code == 403
    assert post(server, {"harness": "fake"}).status_code == 400
    assert post(server, {"harness": "fake", "sid": "a", "at": "2020-01-01T00:00:00Z"}).json()["persisted"] is True
    cleared = httpx.get(server.url + "/api/cleared", timeout=5).json()["cleared"]
    assert [(c["harness"], c["sid"]) for c in cleared] == [("fake", "a")]
    assert set(cleared[0]) == {"harness", "sid", "at"}, "a harness key, a session id and when, nothing else"
    marked_at = datetime.fromisoformat(cleared[0]["at"].replace("Z", "+00:00"))
    assert abs((marked_at - datetime.now(UTC)).total_seconds()) < 30, (
        "the watermark is the server's clock, not the body's"
    )
    doc = wait_doc(server, lambda d: d["dismissals"]["counts"]["sessions"] == 1)
    assert doc["dismissals"]["counts"]["marked"] == 1 and "fake:a" in doc["dismissals"]["marked"]
    on_disk = orjson.loads((state / DISMISSALS_FILE).read_bytes())
    assert [m["sid"] for m in on_disk["marks"]] == ["a"]
    # Restore one.
    assert post(server, {"harness": "fake", "sid": "a", "clear": False}).json()["persisted"] is True
    wait_doc(server, lambda d: d["dismissals"]["counts"]["sessions"] == 2)
    assert httpx.get(server.url + "/api/cleared", timeout=5).json()["cleared"] == []
    # Mark again; the session writes again: the mark lifts by itself.
    post(server, {"harness": "fake", "sid": "b"})
    wait_doc(server, lambda d: "fake:b" in d["dismissals"]["marked"])
    b.at = datetime.now(UTC) + timedelta(seconds=1)
    wait_doc(server, lambda d: "fake:b" not in d["dismissals"]["marked"] and d["dismissals"]["counts"]["sessions"] == 2)
    assert orjson.loads((state / DISMISSALS_FILE).read_bytes())["marks"] == []


def test_a_subagent_write_lifts_the_parent_mark(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    past = datetime.now(UTC) - timedelta(minutes=5)
    parent = FakeSession("p", at=past)
    child = FakeSession("c", at=past, parent_id="p", agent_name="helper")
    server = serve(builder_for([("fake", FakeHarness("fake", [parent, child]))], tmp_path), features=[FEATURE])
    wait_doc(server, lambda d: d["dismissals"]["counts"] is not None)
    post(server, {"harness": "fake", "sid": "p"})
    wait_doc(server, lambda d: "fake:p" in d["dismissals"]["marked"])
    child.at = datetime.now(UTC) + timedelta(seconds=1)
    wait_doc(server, lambda d: "fake:p" not in d["dismissals"]["marked"])
    assert parent.at == past, "only the subagent wrote"


def test_no_dismiss_answers_503_and_leaves_the_store_unread(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / DISMISSALS_FILE).write_bytes(b"{not read}")
    server = serve(
        builder_for([("fake", FakeHarness("fake", [FakeSession("a")]))], tmp_path),
        features=[FEATURE],
        state_dir=state,
        options=Options(no_dismiss=True),
    )
    assert post(server, {"harness": "fake", "sid": "a"}).status_code == 503
    assert httpx.get(server.url + "/api/cleared", timeout=5).status_code == 503
    assert (state / DISMISSALS_FILE).read_bytes() == b"{not read}"
    assert [p.name for p in state.iterdir()] == [DISMISSALS_FILE], "not set aside: it was never read"


def test_an_unreadable_store_is_set_aside_and_named(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / DISMISSALS_FILE).write_bytes(b'{"schema":1,"store":"dismissals","marks":[{"harness":1}]}')
    server = serve(
        builder_for([("fake", FakeHarness("fake", [FakeSession("a")]))], tmp_path), features=[FEATURE], state_dir=state
    )
    assert server.extensions is not None
    [store] = server.extensions.own_stores()
    assert store.status == "reset" and store.detail is not None and "kept as" in store.detail
    assert post(server, {"harness": "fake", "sid": "a"}).json()["persisted"] is True
    assert len(list(state.glob(DISMISSALS_FILE + ".unreadable-*"))) == 1


def test_persisted_false_when_the_store_cannot_be_written(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    import os

    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / DISMISSALS_FILE)
    server = serve(
        builder_for([("fake", FakeHarness("fake", [FakeSession("a")]))], tmp_path), features=[FEATURE], state_dir=state
    )
    answer = post(server, {"harness": "fake", "sid": "a"}).json()
    assert answer["persisted"] is False and answer["marked"] is True
    assert (state / DISMISSALS_FILE).is_fifo(), "left exactly as it was"
    wait_doc(server, lambda d: "fake:a" in d["dismissals"]["marked"])  # held in memory for this run
