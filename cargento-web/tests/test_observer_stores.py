"""The observer's own stores and readers under hostile input: every store reader is fuzzed (an
unreadable file is set aside and reported, never written over or fatal), the reply parser and
the route names a provider per harness, from what the harness plugins declare, or the reason
none can read it. (The work-record readers are fuzzed in the Claude and Pi plugins' suites.)"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento_web import observer
from cargento_web.observer.budget import BUDGET_FILE, BudgetStore
from cargento_web.observer.consent import CONSENT_FILE, ConsentStore
from cargento_web.observer.departures import DEPARTURES_FILE, DeparturesStore
from cargento_web.observer.harnesses import Declared
from cargento_web.observer.jsonstore import StoreUnavailable
from cargento_web.observer.prompt import parse_reply
from cargento_web.observer.providers import route_for
from cargento_web.observer.sidecars import Sidecars, attempts_made
from cargento_web.observer.summaries import summary_attempts_made
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(raw=st.binary(max_size=300) | JSONISH.map(lambda v: json.dumps(v).encode()))
def test_every_store_reads_any_file_or_sets_it_aside(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("s")
    for name in (CONSENT_FILE, BUDGET_FILE, DEPARTURES_FILE):
        (folder / name).write_bytes(raw)
    consent, budget, departures = ConsentStore(folder), BudgetStore(folder), DeparturesStore(folder)
    consent.allowed("codex")
    assert budget.status()["used"] >= 0
    departures.read()
    for store in (consent.store, budget.store, departures.store):
        if store.reset is not None:
            assert store.own_store().status == "reset"
            assert any(p.name.startswith(store.path.name + ".unreadable-") for p in folder.iterdir()), (
                "set aside, not lost"
            )
    budget.reserve()
    assert budget.status()["used"] >= 1


@FUZZ
@given(raw=st.binary(max_size=300) | JSONISH.map(lambda v: json.dumps(v).encode()))
def test_a_sidecar_of_any_shape_is_read_or_left_alone(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    folder = tmp_path_factory.mktemp("s")
    (folder / "observer").mkdir()
    (folder / "observer" / "claude_abc.json").write_bytes(raw)
    sidecars = Sidecars(folder)
    sidecars.load()
    sidecars.recover()
    assert (folder / "observer" / "claude_abc.json").exists() or sidecars.resets


SIDECAR_FIELDS = st.dictionaries(
    st.sampled_from(
        [
            "attempts",
            "readings",
            "summaries",
            "summary_attempts",
            "inflight",
            "summary_inflight",
            "count",
            "summary_count",
        ]
    ),
    JSONISH,
    max_size=8,
)


@FUZZ
@given(fields=SIDECAR_FIELDS)
def test_a_well_named_sidecar_with_any_fields_is_published_or_recovered_without_fault(
    tmp_path_factory: pytest.TempPathFactory, fields: dict[str, Any]
) -> None:
    folder = tmp_path_factory.mktemp("s")
    (folder / "observer").mkdir()
    raw = json.dumps({"version": 1, "harness": "claude", "sid": "abc", **fields}).encode()
    (folder / "observer" / "claude_abc.json").write_bytes(raw)
    sidecars = Sidecars(folder)
    sidecars.load()
    sidecars.recover()
    record = sidecars.get("claude", "abc")
    assert record is not None
    for name in ("attempts", "readings", "summaries", "summary_attempts"):
        assert all(isinstance(r, dict) for r in record.get(name) or [])
    assert attempts_made(record) >= 0 and summary_attempts_made(record) >= 0
    for name in ("inflight", "summary_inflight"):
        assert record.get(name) is None, "a marker of any shape is recorded as interrupted or dropped"


@FUZZ
@given(reply=st.text(max_size=400) | JSONISH.map(json.dumps))
def test_the_reply_parser_takes_anything(reply: str) -> None:
    found = parse_reply(reply, ("a", "b"))
    assert found is None or [v.n for v in found] == [1, 2]


def test_a_reply_must_name_every_line_once_with_a_known_verdict() -> None:
    good = '{"lines": [{"n": 1, "verdict": "departs", "evidence": "x"}, {"n": 2, "verdict": "unknown"}]}'
    assert [v.verdict for v in parse_reply("noise " + good + " noise", ("a", "b")) or []] == ["departs", "unknown"]
    assert parse_reply('{"lines": [{"n": 1, "verdict": "departs"}]}', ("a", "b")) is None, "a line is missing"
    assert parse_reply('{"lines": [{"n": 1, "verdict": "fine"}, {"n": 2, "verdict": "unknown"}]}', ("a", "b")) is None
    assert (
        parse_reply('{"lines": [{"n": 1, "verdict": "unknown"}, {"n": 1, "verdict": "unknown"}]}', ("a", "b")) is None
    )


def _installed(tmp_path: Path) -> BoardBuilder:
    """A builder over every installed harness plugin (the entry points), with a fake home."""
    return BoardBuilder(load_registry(), env={"HOME": str(tmp_path)}, home=tmp_path)


def test_the_route_prefers_the_harness_vendor_and_names_why_none_reads(tmp_path: Path) -> None:
    both = tmp_path / "both"
    both.mkdir()
    for name in ("codex", "claude"):
        (both / name).write_text("#!/bin/sh\n")
        (both / name).chmod(0o755)
    declared = Declared(_installed(tmp_path))

    def route(harness: str, path: Path) -> str | None:
        return route_for(harness, {"PATH": str(path)}, declared.preference(harness)).provider

    assert route("claude", both) == "claude"
    assert route("codex", both) == "codex"
    assert route("gemini", both) == "codex", "a harness with no provider of its own takes the default order"
    (both / "claude").unlink()
    assert route("claude", both) == "codex", "a missing provider changes the route"
    none = route_for("pi", {"PATH": str(tmp_path / "nothing")}, declared.preference("pi"))
    assert none.provider is None and "neither the Codex CLI (codex) nor the Claude Code CLI (claude)" in (
        none.reason or ""
    )


def test_only_the_plugins_that_keep_a_work_record_read_work(tmp_path: Path) -> None:
    declared = Declared(_installed(tmp_path))
    assert declared.work_harnesses() == ["claude", "pi"]
    assert declared.describes("gemini") is None
    assert "checks the session ran" in (declared.describes("claude") or "")
    assert declared.adopt_harnesses() == ["claude", "codex"]
    assert declared.summary_provider() == "codex"


def test_summary_permission_is_the_offering_providers_alone(tmp_path: Path) -> None:
    consent = ConsentStore(tmp_path)
    assert consent.as_dict("codex")["summaries"] is False
    consent.allow_summaries("codex", True)
    assert consent.as_dict("codex")["summaries"] is True
    assert consent.summaries_allowed("claude") is False and consent.summaries_allowed(None) is False
    consent.allow_summaries("codex", False)
    assert consent.as_dict("codex")["summaries"] is False


def test_a_store_that_cannot_be_written_says_so(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes through permission bits: make the store's folder a file instead
        blocked = tmp_path / "blocked"
        blocked.write_text("")
        store = BudgetStore(blocked)
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
        store = BudgetStore(folder)
    with pytest.raises(StoreUnavailable):
        store.reserve()


def test_diagnose_names_the_stores_without_a_server(tmp_path: Path) -> None:
    (tmp_path / CONSENT_FILE).write_text("{not json")
    found = {s.name: s for s in observer.own_stores({"CARGENTO_HOME": str(tmp_path)})}
    assert found["reading permission"].status == "unreadable"
    assert found["reading budget"].status == "absent"
    assert (tmp_path / CONSENT_FILE).read_text() == "{not json", "--diagnose writes nothing"


def test_a_sidecar_keeps_the_newest_attempts_and_still_counts_every_one(tmp_path: Path) -> None:
    from cargento_web.observer.sidecars import KEEP_ATTEMPTS, attempts_made

    sidecars = Sidecars(tmp_path)
    for n in range(1, 31):

        def change(data: dict[str, Any], n: int = n) -> None:
            data["count"] = attempts_made(data) + 1
            data.setdefault("attempts", []).append({"attempt": n, "ending": "failed"})

        sidecars.update("claude", "abc", change)
    record = sidecars.get("claude", "abc")
    assert record is not None
    assert len(record["attempts"]) == KEEP_ATTEMPTS and record["attempts"][-1]["attempt"] == 30
    assert attempts_made(record) == 30, "the attempt count does not stall at what is kept"
    reread = Sidecars(tmp_path)
    reread.load()
    assert attempts_made(reread.get("claude", "abc") or {}) == 30


def test_the_header_names_a_store_that_was_reset(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    import html
    import re

    import httpx
    from cargento.testing.fakes import FakeHarness

    state = tmp_path / "state"
    state.mkdir()
    (state / BUDGET_FILE).write_text('{"version": 1, "spent": [')
    server = serve(
        builder_for([("fake", FakeHarness("fake"))], tmp_path), features=["cargento_web.observer"], state_dir=state
    )
    page = httpx.get(server.url + "/", timeout=5).text
    raw = re.search(r'name="cargento-config" content="([^"]*)"', page)
    assert raw is not None
    resets = json.loads(html.unescape(raw.group(1)))["store_resets"]
    assert any(r["store"] == "reading budget" and "set aside" in r["text"] for r in resets), resets
    assert any(p.name.startswith(BUDGET_FILE + ".unreadable-") for p in state.iterdir())
