"""``POST /api/annotate`` and ``GET /api/annotations`` over a real server: every outcome, every
limit, the guard, two writers at once, files the store must not write over, ``--no-annotations``
and ``--diagnose``."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from cargento.cli import Options
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web import extensions
from cargento_web.annotations import store as store_module
from cargento_web.annotations import store_of
from cargento_web.annotations.store import ANNOTATIONS_FILE

FEATURE = "cargento_web.annotations"
SID = "5b1c9e2a-0d4f-4c21-8a77-1f2e3d4c5b6a"


def _harness(*sids: str, cwd: str | None = "/w/fake/project") -> FakeHarness:
    return FakeHarness("fake", [FakeSession(s, cwd=cwd, title=f"session {s[:4]}") for s in sids])


def _start(serve: Any, builder_for: Any, tmp_path: Path, *sids: str, **kw: Any) -> Any:
    kw.setdefault("state_dir", tmp_path / "home")
    return serve(builder_for([("fake", _harness(*(sids or (SID,))))], tmp_path), features=[FEATURE], **kw)


def _post(server: Any, body: object, **headers: str) -> httpx.Response:
    sent = {"Origin": server.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
    sent.update(headers)
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(server.url + "/api/annotate", content=raw, headers=sent, timeout=10)


def _annotate(server: Any, **fields: Any) -> dict[str, Any]:
    reply = _post(server, {"harness": "fake", "sid": SID, **fields})
    out: dict[str, Any] = reply.json()
    out["status"] = reply.status_code
    return out


def _data(server: Any) -> dict[str, Any]:
    out: dict[str, Any] = httpx.get(server.url + "/api/data", timeout=10).json()
    return out


def _wait_for(server: Any, predicate: Any, timeout: float = 8.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    doc = _data(server)
    while time.monotonic() < deadline:
        if predicate(doc):
            return doc
        time.sleep(0.1)
        doc = _data(server)
    raise AssertionError(f"never true: {json.dumps(doc.get('annotations'))[:600]}")


def test_goal_and_lines_are_set_independently_in_numbered_revisions(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    server = _start(serve, builder_for, tmp_path)
    first = _annotate(server, goal="  Ship the parser  ")
    assert (first["status"], first["outcome"], first["persisted"]) == (200, "stored", True)
    assert first["annotation"]["revision"] == 1 and first["annotation"]["goal"] == "Ship the parser"
    second = _annotate(server, lines=["tests pass", "", "docs updated"], expected_revision=1)
    assert second["outcome"] == "stored"
    assert second["annotation"]["goal"] == "Ship the parser", "saving the list leaves the goal alone"
    assert [x["text"] for x in second["annotation"]["lines"]] == ["tests pass", "docs updated"]
    assert [r["revision"] for r in second["annotation"]["revisions"]] == [1, 2]
    assert second["annotation"]["revisions"][0]["lines"] == [], "revision 1 still means what it meant"
    again = _annotate(server, lines=["tests pass", "docs updated"], expected_revision=2)
    assert (again["outcome"], again["persisted"]) == ("unchanged", True)
    assert again["annotation"]["revision"] == 2, "the same words mint no revision"
    goal_only = _annotate(server, goal="Ship the parser and the CLI")
    assert goal_only["annotation"]["revision"] == 3
    assert [x["text"] for x in goal_only["annotation"]["lines"]] == ["tests pass", "docs updated"]
    doc = _wait_for(server, lambda d: d["annotations"]["sessions"].get(f"fake:{SID}", {}).get("revision") == 3)
    row = doc["annotations"]["sessions"][f"fake:{SID}"]
    assert row["goal"] == "Ship the parser and the CLI" and row["binding"] == {"exact": True}
    on_disk = orjson.loads((tmp_path / "home" / ANNOTATIONS_FILE).read_bytes())
    assert [r["n"] for r in on_disk["entries"][0]["revisions"]] == [1, 2, 3]


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"lines": ["1", "2", "3", "4", "5", "6", "7"]}, "seventh"),
        ({"lines": ["x" * 241]}, "limit is 240"),
        ({"goal": "y" * 241}, "limit is 240"),
        ({"goal": "two\nlines"}, "one line"),
        ({"lines": ["a\rb"]}, "one line"),
        ({}, "names no goal"),
        ({"goal": ""}, "nothing to store"),
        ({"lines": "not a list"}, "list of strings"),
        ({"lines": ["a"], "origins": [0, 1]}, "one per line"),
        ({"clear": True, "goal": "x"}, "alone"),
        ({"settle_through": "not a time"}, "timestamp"),
        ({"settle_through": "2026-12-01T12:00:00Z"}, "no direction to settle"),
        ({"clear": True}, "nothing to discard"),
    ],
)
def test_what_the_store_will_not_take_is_refused_never_clipped(
    serve: Any, builder_for: Any, tmp_path: Path, fields: dict[str, Any], why: str
) -> None:
    server = _start(serve, builder_for, tmp_path)
    reply = _annotate(server, **fields)
    assert (reply["status"], reply["outcome"], reply["persisted"]) == (400, "refused", False)
    assert why in reply["reason"]
    assert not (tmp_path / "home" / ANNOTATIONS_FILE).exists(), "nothing was written"


def test_exactly_six_lines_of_240_are_taken(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    reply = _annotate(server, goal="g" * 240, lines=[str(i) * 240 for i in range(6)])
    assert reply["outcome"] == "stored"
    assert [len(x["text"]) for x in reply["annotation"]["lines"]] == [240] * 6


def test_a_list_from_an_older_revision_or_without_one_is_refused(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    _annotate(server, lines=["a"])
    _annotate(server, lines=["a", "b"], expected_revision=1)
    stale = _annotate(server, lines=["mine"], expected_revision=1)
    assert stale["outcome"] == "refused" and "now at revision 2" in stale["reason"]
    blind = _annotate(server, lines=["mine"])
    assert blind["outcome"] == "refused" and "expected_revision" in blind["reason"]
    assert [x["text"] for x in stale["annotation"]["lines"]] == ["a", "b"], "the reply shows what is stored"


def test_origins_and_entries_give_each_line_its_own_source(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    first = _annotate(server, lines=["same", "same"], origins=[{"entry": "your prompt"}, None])
    assert [(x["source"], x["entry"]) for x in first["annotation"]["lines"]] == [
        ("entry", "your prompt"),
        ("typed", None),
    ]
    swapped = _annotate(server, lines=["same", "same"], origins=[1, 0], expected_revision=1)
    assert swapped["outcome"] == "stored"
    assert [x["source"] for x in swapped["annotation"]["lines"]] == ["typed", "entry"]
    adopted = _annotate(server, goal="Do the thing", goal_source="prompt")
    assert adopted["annotation"]["goal_source"] == "prompt"
    edited = _annotate(server, goal="Do the thing well")
    assert edited["annotation"]["goal_source"] == "typed", "editing an adopted goal makes typed words"


def test_clear_leaves_a_text_free_discard_record_and_settle_marks_the_baseline(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    server = _start(serve, builder_for, tmp_path)
    _annotate(server, goal="private goal words", lines=["private line words"])
    settled = _annotate(server, settle_through="2026-01-01T00:00:00Z")
    assert settled["outcome"] == "stored" and settled["annotation"]["settled_revision"] == 1
    assert _annotate(server, settle_through="2026-01-01T00:00:00Z")["outcome"] == "unchanged"
    future = _annotate(server, settle_through="2999-01-01T00:00:00Z")
    assert future["outcome"] == "refused"
    cleared = _annotate(server, clear=True)
    assert (cleared["outcome"], cleared["persisted"]) == ("stored", True)
    assert cleared["annotation"]["kind"] == "discard"
    raw = (tmp_path / "home" / ANNOTATIONS_FILE).read_text()
    assert "private" not in raw
    listed = httpx.get(server.url + "/api/annotations", timeout=10).json()
    (row,) = [r for r in listed["log"] if r["sid"] == SID]
    assert row["annotation"] == "discard" and row["sources"] == []
    assert _annotate(server, clear=True)["outcome"] == "refused"
    after = _annotate(server, goal="new words")
    assert after["annotation"]["revision"] == 2, "new words after a discard never reuse a number"


def test_a_corrupt_store_is_untrusted_and_never_written_over(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ANNOTATIONS_FILE).write_bytes(b'{"schema": 1, "entries": [{"v": 1, "kind": "wor')
    server = _start(serve, builder_for, tmp_path)
    reply = _annotate(server, goal="g")
    assert (reply["status"], reply["outcome"], reply["persisted"]) == (409, "untrusted", False)
    assert "not valid JSON" in reply["reason"]
    assert (home / ANNOTATIONS_FILE).read_bytes() == b'{"schema": 1, "entries": [{"v": 1, "kind": "wor'
    doc = _data(server)
    assert doc["annotations"]["state"] == "untrusted" and "not valid JSON" in doc["annotations"]["detail"]
    listed = httpx.get(server.url + "/api/annotations", timeout=10).json()
    assert listed["state"] == "untrusted" and listed["annotations"] == []
    (home / ANNOTATIONS_FILE).unlink()
    assert _annotate(server, goal="g")["outcome"] == "stored", "moved away, saving works again"


def test_a_store_from_a_newer_build_is_untrusted_and_kept(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    newer = b'{"schema": 2, "entries": {"fake:x": {"goal": "kept"}}}'
    (home / ANNOTATIONS_FILE).write_bytes(newer)
    server = _start(serve, builder_for, tmp_path)
    reply = _annotate(server, goal="g")
    assert reply["outcome"] == "untrusted" and "newer Cargento" in reply["reason"]
    assert (home / ANNOTATIONS_FILE).read_bytes() == newer


def test_an_entry_from_a_newer_build_is_unreadable_and_kept_as_it_was(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    entry = {"v": 3, "kind": "intent", "harness": "fake", "sid": SID, "whatever": [1, 2]}
    (home / ANNOTATIONS_FILE).write_text(json.dumps({"schema": 1, "entries": [entry]}))
    other = "9e9e9e9e-0000-4000-8000-000000000000"
    server = _start(serve, builder_for, tmp_path, SID, other)
    reply = _annotate(server, goal="g")
    assert (reply["status"], reply["outcome"], reply["persisted"]) == (409, "unreadable", False)
    stored = _post(server, {"harness": "fake", "sid": other, "goal": "other words"}).json()
    assert stored["outcome"] == "stored"
    assert entry in orjson.loads((home / ANNOTATIONS_FILE).read_bytes())["entries"]


def test_a_failed_write_is_unwritable_and_held_for_the_run(
    serve: Any, builder_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = _start(serve, builder_for, tmp_path)

    def disk_full(path: Path, data: bytes | str, *, durable: bool = True) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module, "write_atomic", disk_full)
    reply = _annotate(server, goal="held words")
    assert (reply["status"], reply["outcome"], reply["persisted"]) == (507, "unwritable", False)
    assert "held for this run only" in reply["reason"] and reply["annotation"]["persisted"] is False
    doc = _wait_for(server, lambda d: f"fake:{SID}" in d["annotations"]["sessions"])
    assert doc["annotations"]["sessions"][f"fake:{SID}"]["persisted"] is False
    assert doc["annotations"]["write_error"] is not None
    monkeypatch.undo()
    retried = _annotate(server, goal="held words", lines=["and a line"], expected_revision=1)
    assert retried["outcome"] == "stored"
    assert "held words" in (tmp_path / "home" / ANNOTATIONS_FILE).read_text()


def test_an_entry_too_big_for_the_store_even_alone_is_not_held(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    store = store_of(server.extensions)
    assert store is not None
    store.max_bytes = 300
    reply = _annotate(server, goal="w" * 240)
    assert (reply["outcome"], reply["persisted"]) == ("unwritable", False)
    assert "even alone" in reply["reason"] and "annotation" not in reply
    assert store.get("fake", SID) is None


def test_the_store_keeps_256_entries_discards_evicted_first(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    _post(server, {"harness": "fake", "sid": "discarded", "goal": "x"})
    _post(server, {"harness": "fake", "sid": "discarded", "clear": True})
    for i in range(256):
        assert _post(server, {"harness": "fake", "sid": f"s{i:03}", "goal": f"goal {i}"}).json()["outcome"] == "stored"
    entries = orjson.loads((tmp_path / "home" / ANNOTATIONS_FILE).read_bytes())["entries"]
    sids = [e["sid"] for e in entries]
    assert len(sids) == 256 and "discarded" not in sids and "s000" in sids
    _post(server, {"harness": "fake", "sid": "one-more", "goal": "x"})
    sids = [e["sid"] for e in orjson.loads((tmp_path / "home" / ANNOTATIONS_FILE).read_bytes())["entries"]]
    assert len(sids) == 256 and "s000" not in sids and "one-more" in sids, "then the oldest words"


def test_sixteen_revisions_are_kept(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    for i in range(18):
        _annotate(server, goal=f"goal {i}")
    listed = httpx.get(server.url + "/api/annotations", timeout=10).json()
    (view,) = listed["annotations"]
    assert [r["revision"] for r in view["revisions"]] == list(range(3, 19))


def test_two_servers_and_a_process_writing_the_same_store_lose_nothing(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    first = _start(serve, builder_for, tmp_path)
    second = _start(serve, builder_for, tmp_path)
    script = (
        "import sys, httpx\n"
        "for i in range(15):\n"
        "    r = httpx.post(sys.argv[1] + '/api/annotate', json={'harness': 'fake', 'sid': f'p-{i}', 'goal': 'p'})\n"
        "    assert r.json()['outcome'] == 'stored', r.text\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, second.url])
    failures: list[str] = []

    def write(server: Any, prefix: str) -> None:
        for i in range(15):
            reply = _post(server, {"harness": "fake", "sid": f"{prefix}-{i}", "goal": prefix}).json()
            if reply["outcome"] != "stored":
                failures.append(str(reply))

    threads = [threading.Thread(target=write, args=(s, p)) for s, p in ((first, "a"), (second, "b"), (first, "c"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert proc.wait(60) == 0 and failures == []
    listed = httpx.get(first.url + "/api/annotations", timeout=10).json()
    assert {a["sid"] for a in listed["annotations"]} == {f"{p}-{i}" for p in "abcp" for i in range(15)}
    # Two tabs on two servers editing one session: the second is refused, not lost over.
    assert _annotate(first, lines=["tab one"])["outcome"] == "stored"
    assert _annotate(second, lines=["tab two"], expected_revision=0)["outcome"] == "refused"


def test_a_write_by_another_process_reaches_the_open_page(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    before = _data(server)
    other = store_module.AnnotationStore(tmp_path / "home" / ANNOTATIONS_FILE)
    from datetime import UTC, datetime

    other.annotate("fake", SID, store_module.Change(set_goal=True, goal="from elsewhere"), datetime.now(UTC))
    doc = _wait_for(
        server, lambda d: d["annotations"]["sessions"].get(f"fake:{SID}", {}).get("goal") == "from elsewhere"
    )
    assert doc["revision"] > before["revision"]
    assert doc["annotations"]["stamp"] != before["annotations"]["stamp"]


def test_the_guard_and_the_body_cap(serve: Any, builder_for: Any, tmp_path: Path, make_client: Any) -> None:
    server = _start(serve, builder_for, tmp_path)
    body = {"harness": "fake", "sid": SID, "goal": "g"}
    assert _post(server, body, Origin="http://evil.example").status_code == 403
    assert _post(server, body, **{"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert _post(server, body, **{"Sec-Fetch-Mode": "navigate"}).status_code == 403
    assert httpx.get(server.url + "/api/annotate", timeout=5).status_code == 405
    assert httpx.post(server.url + "/api/annotations", timeout=5).status_code == 405
    too_big = json.dumps({**body, "lines": ["x" * 200] * 100}).encode()
    assert _post(server, too_big).status_code == 413
    assert _post(server, b"{not json").json()["outcome"] == "refused"
    assert not (tmp_path / "home" / ANNOTATIONS_FILE).exists()
    remote = make_client(server.app, host=f"127.0.0.1:{server.port}", client=("192.0.2.7", 5000))
    assert remote.post("/api/annotate", content=json.dumps(body).encode()).status_code == 403
    assert remote.get("/api/annotations").status_code == 403


def test_annotations_serves_sessions_off_the_board_and_every_board_session_in_the_log(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    bare = "7a7a7a7a-1111-4111-8111-111111111111"
    harness = FakeHarness(
        "fake",
        [FakeSession(SID, title="with words"), FakeSession(bare, cwd=None, title="no project, no goal")],
    )
    server = serve(builder_for([("fake", harness)], tmp_path), features=[FEATURE], state_dir=tmp_path / "home")
    assert {s["session_id"] for s in _data(server)["sessions"]} == {SID, bare}
    _annotate(server, goal="on the board")
    _post(server, {"harness": "fake", "sid": "gone-long-ago", "goal": "off the board", "lines": ["kept"]})
    listed = httpx.get(server.url + "/api/annotations", timeout=10).json()
    assert {a["sid"] for a in listed["annotations"]} == {SID, "gone-long-ago"}
    by_sid = {r["sid"]: r for r in listed["log"]}
    assert set(by_sid) == {SID, bare, "gone-long-ago"}, "every board session and every entry, once"
    assert by_sid[bare]["annotation"] == "none" and by_sid[bare]["project"] is None
    assert by_sid["gone-long-ago"]["on_board"] is False
    labels = [(s["label"], s["currentness"]) for s in by_sid["gone-long-ago"]["sources"]]
    assert labels == [("typed goal", "currentness not checked"), ("expected outcome line 1", "currentness not checked")]
    assert all(s["observed_at"] for s in by_sid["gone-long-ago"]["sources"])
    assert "gone-long-ago" not in json.dumps(_data(server)["annotations"]), "the refresh loop carries board rows only"


def test_a_short_prefix_another_session_shares_is_said_on_the_row(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path, "c0ffee12", "c0ffee12-aaaa-4bbb-8ccc-dddddddddddd")
    _post(server, {"harness": "fake", "sid": "c0ffee12", "goal": "which one?"})
    doc = _wait_for(server, lambda d: "fake:c0ffee12" in d["annotations"]["sessions"])
    assert doc["annotations"]["sessions"]["fake:c0ffee12"]["binding"] == {"exact": False, "shared_with": 1}


def test_no_annotations_neither_reads_nor_writes_and_the_routes_answer_503(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ANNOTATIONS_FILE).write_bytes(b"garbage")
    server = _start(serve, builder_for, tmp_path, options=Options(no_annotations=True))
    reply = _annotate(server, goal="g")
    assert reply["status"] == 503 and reply["outcome"] == "refused" and "--no-annotations" in reply["reason"]
    assert httpx.get(server.url + "/api/annotations", timeout=5).status_code == 503
    assert _data(server)["annotations"]["on"] is False
    page = httpx.get(server.url + "/", timeout=5).text
    assert "--no-annotations" in page and "garbage" not in page
    assert (home / ANNOTATIONS_FILE).read_bytes() == b"garbage"


def test_diagnose_names_the_store_and_its_read_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"CARGENTO_HOME": str(tmp_path), "HOME": str(tmp_path)}
    (absent,) = [s for s in extensions.own_stores(env) if s.name == "annotations"]
    assert (absent.path, absent.status) == (str(tmp_path / ANNOTATIONS_FILE), "absent")
    (tmp_path / ANNOTATIONS_FILE).write_bytes(b"[1, 2")
    (broken,) = [s for s in extensions.own_stores(env) if s.name == "annotations"]
    assert broken.status == "unreadable" and broken.detail is not None and "not valid JSON" in broken.detail
    out = subprocess.run(
        [str(Path(sys.executable).with_name("cargento")), "--diagnose"],
        env={**env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert str(tmp_path / ANNOTATIONS_FILE) in out.stdout + out.stderr
    assert "not valid JSON" in out.stdout + out.stderr


def test_a_credential_typed_into_a_goal_never_reaches_the_disk(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    server = _start(serve, builder_for, tmp_path)
    secret = "sk-ant-api03-" + "A" * 60
    reply = _annotate(server, goal=f"use {secret} for the call", lines=[f"token {secret}"])
    assert reply["outcome"] == "stored"
    raw = (tmp_path / "home" / ANNOTATIONS_FILE).read_text()
    assert secret not in raw and "REDACTED" in raw
