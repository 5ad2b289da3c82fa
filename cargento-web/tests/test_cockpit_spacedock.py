"""The cockpit's Spacedock strips and workflow stage conditions over a real server: workflows
built in the test, booted by first officers in real Claude, Pi and Codex stores."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from cargento.cli import Options
from cargento_harness_claude import plugin as claude
from cargento_harness_codex import plugin as codex
from cargento_harness_pi import plugin as pi
from cargento_web.cockpit.tripwires import MAX_RULES, TRIPWIRES_FILE


def _load_world() -> ModuleType:
    """The Spacedock world beside this file, importable by name (tests run in importlib mode)."""
    name = "cargento_web_tests_spacedock_world"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("spacedock_world.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


W = _load_world()
CODEX_SID, ENSIGN_SID, FO_SID, PI_SID, STAGES = W.CODEX_SID, W.ENSIGN_SID, W.FO_SID, W.PI_SID, W.STAGES
Workflow = W.Workflow
claude_ensign, claude_first_officer = W.claude_ensign, W.claude_first_officer
codex_first_officer, pi_first_officer = W.codex_first_officer, W.pi_first_officer

FEATURE = ["cargento_web.cockpit"]


def _data(server: Any) -> dict[str, Any]:
    return httpx.get(server.url + "/api/data", timeout=10).json()  # type: ignore[no-any-return]


def _until(server: Any, check: Any, timeout: float = 8.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    doc = _data(server)
    while time.monotonic() < deadline:
        if check(doc):
            return doc
        time.sleep(0.1)
        doc = _data(server)
    raise AssertionError(f"never true; last cockpit document: {json.dumps(doc.get('cockpit'))[:2000]}")


def _post(server: Any, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        server.url + "/api/tripwire",
        content=json.dumps(body),
        headers={"Origin": server.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"},
        timeout=10,
    )


def _workflow(doc: dict[str, Any], directory: Path) -> dict[str, Any] | None:
    return next((w for w in doc["cockpit"]["spacedock"]["workflows"] if w["dir"] == str(directory)), None)


def _entities(w: dict[str, Any]) -> dict[str, str | None]:
    return {e["slug"]: e["status"] for e in w["entities"]}


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Any, str]:
    home = tmp_path / "home"
    cwd = str(tmp_path / "w" / "ship")
    wf = Workflow(Path(cwd))
    wf.entity("fix-login", "implementation")
    wf.entity("add-search", "backlog")
    wf.entity("odd-one", "parked")
    return home, wf, cwd


def test_claude_first_officer_row_gets_a_strip_and_the_ensigns_entity_is_held(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str]
) -> None:
    home, wf, cwd = world
    claude_first_officer(
        home,
        cwd,
        wf,
        dispatchable=[{"slug": "from-boot", "current": "ideation"}, {"slug": "fix-login", "current": "ideation"}],
    )
    claude_ensign(home, cwd, "fix-login")
    server = serve(builder_for([("claude", claude)], home), features=FEATURE)
    doc = _until(server, lambda d: _workflow(d, wf.dir) is not None)
    rows = {s["session_id"]: s for s in doc["sessions"]}
    assert rows[FO_SID]["role"] == "spacedock:first-officer"
    assert rows[ENSIGN_SID]["role"] == "spacedock:ensign"
    w = _workflow(doc, wf.dir)
    assert w is not None
    assert w["stages"] == list(STAGES), "the README frontmatter's ordered stage list"
    assert w["first_officer"] == f"claude:{FO_SID}"
    assert _entities(w) == {
        "add-search": "backlog",
        "fix-login": "implementation",  # the state file wins over boot's snapshot
        "odd-one": "parked",
        "from-boot": "ideation",  # only boot names it: filled in behind the state directory
    }
    by_slug = {e["slug"]: e for e in w["entities"]}
    assert by_slug["from-boot"]["source"] == "boot snapshot"
    assert by_slug["fix-login"]["held_by"] == f"claude:{ENSIGN_SID}", "the ensign named it in its request"
    assert by_slug["add-search"]["held_by"] is None
    # The entity moves: the next board reads its state file again.
    wf.entity("fix-login", "validation")
    doc = _until(server, lambda d: _entities(_workflow(d, wf.dir) or {"entities": []}).get("fix-login") == "validation")


def test_pi_and_codex_boot_results_earn_the_badge_and_a_strip_but_pi_bolds_nothing(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    pi_wf = Workflow(tmp_path / "w" / "pi-proj")
    pi_wf.entity("alpha", "ideation")
    codex_wf = Workflow(tmp_path / "w" / "codex-proj")
    codex_wf.entity("beta", "validation")
    pi_first_officer(home, str(tmp_path / "w" / "pi-proj"), pi_wf)
    codex_first_officer(home, str(tmp_path / "w" / "codex-proj"), codex_wf)
    # A Claude ensign naming Pi's entity is not Pi's worker: Pi reports none.
    claude_ensign(home, str(tmp_path / "w" / "pi-proj"), "alpha")
    server = serve(builder_for([("pi", pi), ("codex", codex), ("claude", claude)], home), features=FEATURE)
    doc = _until(server, lambda d: _workflow(d, pi_wf.dir) is not None and _workflow(d, codex_wf.dir) is not None)
    rows = {s["session_id"]: s for s in doc["sessions"]}
    assert rows[PI_SID]["role"] == "spacedock:first-officer"
    assert rows[CODEX_SID]["role"] == "spacedock:first-officer", "Codex's zero-exit boot wrapper earns the badge"
    pw = _workflow(doc, pi_wf.dir)
    assert (
        pw is not None and pw["harness"] == "pi" and _entities(pw) == {"alpha": "ideation", "task-1": "implementation"}
    )
    assert all(e["held_by"] is None for e in pw["entities"]), "a Pi strip never bolds an entity"
    cw = _workflow(doc, codex_wf.dir)
    assert cw is not None and _entities(cw) == {"beta": "validation"}


def test_a_readme_without_a_stage_list_draws_no_strip_and_says_why(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str]
) -> None:
    home, wf, cwd = world
    (wf.dir / "README.md").write_text("# Plans\n\nNo frontmatter at all.\n")
    claude_first_officer(home, cwd, wf)
    server = serve(builder_for([("claude", claude)], home), features=FEATURE)
    doc = _until(server, lambda d: _workflow(d, wf.dir) is not None)
    w = _workflow(doc, wf.dir)
    assert w is not None and w["stages"] is None
    assert w["unavailable"] == ["README.md declares no stage list"]


def test_no_spacedock_drops_strips_and_suspends_saved_conditions(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str], tmp_path: Path
) -> None:
    home, wf, cwd = world
    claude_first_officer(home, cwd, wf)
    state = tmp_path / "state"
    state.mkdir()
    rule = {
        "id": "r1",
        "workflow": str(wf.dir),
        "stage": "validation",
        "project": None,
        "saved_at": "2026-12-01T00:00:00+00:00",
        "tripped": None,
    }
    (state / TRIPWIRES_FILE).write_text(json.dumps({"version": 1, "revision": 3, "rules": [rule]}))
    server = serve(
        builder_for([("claude", claude)], home), features=FEATURE, options=Options(no_spacedock=True), state_dir=state
    )
    doc = _data(server)
    assert doc["cockpit"]["spacedock"]["enabled"] is False and doc["cockpit"]["spacedock"]["workflows"] == []
    rows = {s["session_id"]: s for s in doc["sessions"]}
    assert rows[FO_SID]["role"] == "spacedock:first-officer", "Claude role metadata remains"
    tw = doc["cockpit"]["tripwires"]
    assert tw["suspended"] is True and tw["revision"] == 3
    assert [r["state"] for r in tw["rules"]] == ["suspended"], "saved conditions remain readable and suspended"


def test_no_tripwires_neither_reads_nor_writes_the_store(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str], tmp_path: Path
) -> None:
    home, wf, cwd = world
    claude_first_officer(home, cwd, wf)
    state = tmp_path / "state"
    state.mkdir()
    (state / TRIPWIRES_FILE).write_text("not json at all")
    server = serve(
        builder_for([("claude", claude)], home), features=FEATURE, options=Options(no_tripwires=True), state_dir=state
    )
    doc = _data(server)
    assert doc["cockpit"]["tripwires"]["enabled"] is False
    r = _post(server, {"action": "save", "id": "x", "workflow": str(wf.dir), "stage": "done", "expected_revision": 0})
    assert r.status_code == 503
    assert (state / TRIPWIRES_FILE).read_text() == "not json at all", "neither read (set aside) nor written"
    assert not [p.name for p in state.iterdir() if "tripwires" in p.name and p.name != TRIPWIRES_FILE]


def test_post_tripwire_semantics_and_a_trip_after_the_baseline(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str], tmp_path: Path
) -> None:
    home, wf, cwd = world
    claude_first_officer(home, cwd, wf)
    state = tmp_path / "state"
    server = serve(builder_for([("claude", claude)], home), features=FEATURE, state_dir=state)
    _until(server, lambda d: _workflow(d, wf.dir) is not None)
    base = {"workflow": str(wf.dir), "stage": "validation"}
    refused = httpx.post(
        server.url + "/api/tripwire", content="{}", headers={"Origin": "http://evil.example"}, timeout=5
    )
    assert refused.status_code == 403
    assert _post(server, {"action": "save", "id": "r1", "stage": "validation"}).status_code == 400, (
        "expected_revision is required"
    )
    assert (
        _post(server, {**base, "action": "save", "id": "r1", "stage": "shipping", "expected_revision": 0}).status_code
        == 422
    )
    ok = _post(server, {**base, "action": "save", "id": "r1", "expected_revision": 0})
    assert ok.status_code == 200 and ok.json() == {"persisted": True, "revision": 1, "action": "save", "id": "r1"}
    stale = _post(server, {**base, "action": "save", "id": "r1", "expected_revision": 0})
    assert stale.status_code == 409 and stale.json()["revision"] == 1
    saved = json.loads((state / TRIPWIRES_FILE).read_text())
    assert [(r["id"], r["stage"]) for r in saved["rules"]] == [("r1", "validation")]
    # First sight is a baseline: an entity already at the stage is not an entry.
    wf.entity("already-there", "validation")
    doc = _until(
        server,
        lambda d: (
            d["cockpit"]["tripwires"]["rules"][0]["baseline"]
            and "already-there" in _entities(_workflow(d, wf.dir) or {"entities": []})
        ),
    )
    assert doc["cockpit"]["tripwires"]["rules"][0]["state"] == "armed"
    # An entity observed moving from implementation into validation trips it, once.
    wf.entity("fix-login", "validation")
    doc = _until(server, lambda d: d["cockpit"]["tripwires"]["rules"][0]["state"] == "tripped")
    trip = doc["cockpit"]["tripwires"]["rules"][0]["tripped"]
    assert trip["entity"] == "fix-login" and trip["session"] == f"claude:{FO_SID}"
    assert trip["raise"] == "no notification lane", "this server runs no hub; the trip says so"
    revision = doc["cockpit"]["tripwires"]["revision"]
    # Re-saving the unchanged stage keeps the latch.
    again = _post(server, {**base, "action": "save", "id": "r1", "expected_revision": revision})
    assert again.status_code == 200
    doc = _data(server)
    assert doc["cockpit"]["tripwires"]["rules"][0]["state"] == "tripped"
    # Rearm clears it; the entity already inside does not trip it again.
    rearm = _post(
        server, {"action": "rearm", "id": "r1", "stage": "validation", "expected_revision": again.json()["revision"]}
    )
    assert rearm.status_code == 200
    wf.entity("add-search", "ideation")
    doc = _until(server, lambda d: _entities(_workflow(d, wf.dir) or {"entities": []}).get("add-search") == "ideation")
    assert doc["cockpit"]["tripwires"]["rules"][0]["state"] == "armed"
    removed = _post(
        server, {"action": "remove", "id": "r1", "stage": "validation", "expected_revision": rearm.json()["revision"]}
    )
    assert removed.status_code == 200
    assert json.loads((state / TRIPWIRES_FILE).read_text())["rules"] == []


def test_a_restart_sets_a_baseline_rather_than_an_entry(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str], tmp_path: Path
) -> None:
    home, wf, cwd = world
    claude_first_officer(home, cwd, wf)
    state = tmp_path / "state"
    first = serve(builder_for([("claude", claude)], home), features=FEATURE, state_dir=state)
    _until(first, lambda d: _workflow(d, wf.dir) is not None)
    assert (
        _post(
            first,
            {"action": "save", "id": "r1", "workflow": str(wf.dir), "stage": "validation", "expected_revision": 0},
        ).status_code
        == 200
    )
    first.stop()
    wf.entity("fix-login", "validation")  # moved while no server watched: a gap, not an entry
    second = serve(builder_for([("claude", claude)], home), features=FEATURE, state_dir=state)
    doc = _until(
        second, lambda d: bool(d["cockpit"]["tripwires"]["rules"]) and d["cockpit"]["tripwires"]["rules"][0]["baseline"]
    )
    time.sleep(1.2)
    doc = _data(second)
    assert doc["cockpit"]["tripwires"]["rules"][0]["state"] == "armed"
    assert doc["cockpit"]["tripwires"]["rules"][0]["tripped"] is None


def test_sixty_four_rules_without_eviction_and_a_failed_write_is_503(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    workflows = []
    for n in range(MAX_RULES + 1):
        wf = Workflow(tmp_path / "w" / f"p{n}")
        workflows.append(wf)
    # One first officer booting all of them would exceed the per-board bound: exercise the
    # store through the Tripwires object the server holds, with workflows as read.
    cwd = str(tmp_path / "w" / "p0")
    claude_first_officer(home, cwd, workflows[0])
    state = tmp_path / "state"
    server = serve(builder_for([("claude", claude)], home), features=FEATURE, state_dir=state)
    _until(server, lambda d: _workflow(d, workflows[0].dir) is not None)
    ext = server.extensions.items[0]
    seen = ext.workflows[str(workflows[0].dir)]
    import attrs

    readings = {str(w.dir): attrs.evolve(seen, dir=str(w.dir)) for w in workflows}
    tw = ext.tripwires
    for n, w in enumerate(workflows[:MAX_RULES]):
        change = tw.change(
            {"action": "save", "id": f"r{n}", "workflow": str(w.dir), "stage": "done", "expected_revision": n}, readings
        )
        assert change.status == 200, change.body
    full = tw.change(
        {
            "action": "save",
            "id": "r-extra",
            "workflow": str(workflows[-1].dir),
            "stage": "done",
            "expected_revision": MAX_RULES,
        },
        readings,
    )
    assert full.status == 409 and full.body["reason"] == "full"
    assert len(json.loads((state / TRIPWIRES_FILE).read_text())["rules"]) == MAX_RULES, "nothing evicted"
    # A store that cannot be written answers 503 and changes nothing (its path is now a
    # directory, which no rename can replace, whoever the test runs as).
    saved = (state / TRIPWIRES_FILE).read_bytes()
    (state / TRIPWIRES_FILE).unlink()
    (state / TRIPWIRES_FILE).mkdir()
    failed = _post(server, {"action": "remove", "id": "r0", "stage": "done", "expected_revision": MAX_RULES})
    assert failed.status_code == 503 and failed.json()["persisted"] is False
    assert len(tw.store.rules) == MAX_RULES and tw.store.revision == MAX_RULES, "memory unchanged by a failed write"
    (state / TRIPWIRES_FILE).rmdir()
    (state / TRIPWIRES_FILE).write_bytes(saved)


def test_a_trip_raises_through_the_hub_and_its_delivery_is_recorded(
    serve: Any, builder_for: Any, world: tuple[Path, Any, str], tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    home, wf, cwd = world
    claude_first_officer(home, cwd, wf)
    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "hub", notifier=notifier)
    try:
        server = serve(builder_for([("claude", claude)], home), hub=hub, features=FEATURE, state_dir=tmp_path / "st")
        _until(server, lambda d: _workflow(d, wf.dir) is not None)
        body = {"action": "save", "id": "r1", "workflow": str(wf.dir), "stage": "validation", "expected_revision": 0}
        assert _post(server, body).status_code == 200
        _until(server, lambda d: d["cockpit"]["tripwires"]["rules"][0]["baseline"])
        wf.entity("fix-login", "validation")
        doc = _until(server, lambda d: d["cockpit"]["tripwires"]["rules"][0]["state"] == "tripped")
        assert doc["cockpit"]["tripwires"]["rules"][0]["tripped"]["raise"] == "raised"
        assert notifier.wait_for(1)
        assert notifier.sent[0][0] == "Workflow plans: fix-login entered validation"
        record = httpx.get(server.url + f"/api/session-record?harness=claude&sid={FO_SID}", timeout=5).json()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and record["deliveries"][0]["outcome"] != "handed-over":
            time.sleep(0.1)
            record = httpx.get(server.url + f"/api/session-record?harness=claude&sid={FO_SID}", timeout=5).json()
        [delivery] = record["deliveries"]
        assert delivery["kind"] == "tripwire" and delivery["outcome"] == "handed-over"
        assert delivery["kind_words"] == "workflow stage condition tripped"
    finally:
        hub.close()
