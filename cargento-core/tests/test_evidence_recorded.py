"""Evidence on the stores the real CLIs wrote (every golden scenario) and on every demo store:
every state carries at least one item naming a real source, and an overrule names both sides.

Runs with whichever harness plugins are installed (core's own suite also runs without them).
"""

from __future__ import annotations

import importlib
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.board import BoardSession
from cargento.models import Evidence
from cargento.testing.demo import DemoViewer
from cargento.testing.golden import golden_board
from cargento.testing.homes import copy_golden

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "testdata" / "golden"
SCENARIOS = [row["dir"] for row in json.loads((GOLDEN / "index.json").read_text())]
#: The harness id each recorded CLI's scenarios belong to.
KEYS = {
    "claude-code": "claude",
    "codex": "codex",
    "copilot": "copilot",
    "gemini-cli": "gemini",
    "opencode": "opencode",
    "pi": "pi",
}
HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")
ROUTES = ("POST /api/events/", "working window (")


def _plugin(key: str) -> Any:
    try:
        return importlib.import_module(f"cargento_harness_{key}.plugin")
    except ImportError:
        pytest.skip(f"the {key} harness plugin is not installed")


def _real(item: Evidence, home: Path) -> bool:
    """A source names a file that exists under *home* (``~`` is *home*), or a route, a pid in
    the process table, or a named rule."""
    source = item.source
    if source.startswith(ROUTES) or (item.signal == "process table" and source.startswith("pid ")):
        return True
    path = source.split(" · ")[0].removesuffix(" (+ -wal)")
    if path.startswith("~"):
        path = str(home) + path[1:]
    return Path(path).exists()


def _check(row: BoardSession, home: Path) -> None:
    state = [e for e in row.evidence if e.reading in ("state", "wait")]
    assert state, f"{row.harness} {row.session_id}: no evidence for its state"
    assert any(_real(e, home) for e in state), [e.source for e in state]
    if row.state == "needs_input":
        assert any(e.reading == "wait" for e in row.evidence), "a wait rests on a wait item"
    for item in row.evidence:
        assert item.said and item.source, item
        if item.overruled is not None:
            assert item.overruled.said and item.overruled.source and item.overruled.why, item
            assert (item.overruled.signal, item.overruled.source, item.overruled.said) != (
                item.signal,
                item.source,
                item.said,
            ), "an overrule names two different sides"
    if row.model is not None:
        assert any(e.reading == "model" and row.model in e.said for e in row.evidence)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_recorded_store_s_rows_carry_evidence_naming_real_sources(scenario: str, tmp_path: Path) -> None:
    harness = json.loads((GOLDEN / scenario / "truth.json").read_text())["harness"]
    key = KEYS[harness]
    plugin = _plugin(key)
    home, truth = copy_golden(scenario, tmp_path)
    board = golden_board(plugin, key, home, truth)
    assert board.sessions
    for row in board.sessions:
        _check(row, home)


def test_a_recorded_pid_file_whose_process_is_gone_is_an_overrule_naming_both_sides(tmp_path: Path) -> None:
    plugin = _plugin("claude")
    home, truth = copy_golden("claude-code-2.1.332/D1-permission-wait", tmp_path)
    (row,) = golden_board(plugin, "claude", home, truth).sessions
    (overrule,) = [e for e in row.evidence if e.overruled is not None]
    assert overrule.signal == "process table" and overrule.reading == "wait"
    assert overrule.overruled is not None
    assert overrule.overruled.source == "~/.claude/sessions/16336.json"
    assert overrule.overruled.said == "pid file of process 16336 says waiting (permission prompt)"
    assert row.waiting is None


@pytest.mark.parametrize("key", HARNESSES)
def test_every_demo_row_carries_evidence(key: str, tmp_path: Path) -> None:
    plugin = _plugin(key)
    viewer: DemoViewer[Any] = DemoViewer(tmp_path / "home", plugin, key)
    seen: set[str] = set()
    for seconds in (1.0, 30.0, 75.0, 120.0):
        board = viewer.at(seconds)
        assert board.sessions, f"{key}'s demo shows no rows"
        for row in board.sessions:
            _check(row, viewer.home)
            assert row.unknown_records == (), "a demo store is written in the schema this build reads"
            seen.add(row.state)
    assert seen, key


def _items(row: BoardSession) -> list[Evidence]:
    return list(row.evidence)


def test_evidence_is_stable_while_a_recorded_store_stands_still(tmp_path: Path) -> None:
    plugin = _plugin("codex")
    home, truth = copy_golden("codex-0.171.0/A-single-turn", tmp_path)
    first = golden_board(plugin, "codex", home, truth)
    later = golden_board(plugin, "codex", home, {**truth, "snapshot_at": float(truth["snapshot_at"]) + 600})
    assert _items(first.sessions[0]) == _items(later.sessions[0])
    assert timedelta(seconds=600) == later.generated_at - first.generated_at


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_a_recorded_store_holds_nothing_this_build_does_not_understand(scenario: str, tmp_path: Path) -> None:
    """The stores the real CLIs wrote are the schema of record: no reader counts drift on them."""
    key = KEYS[json.loads((GOLDEN / scenario / "truth.json").read_text())["harness"]]
    home, truth = copy_golden(scenario, tmp_path)
    board = golden_board(_plugin(key), key, home, truth)
    assert all(row.unknown_records == () for row in board.sessions), [r.unknown_records for r in board.sessions]


#: The recorded stores that name the CLI version that wrote them (Gemini CLI's and pi's do not).
VERSIONED = {"claude", "codex", "copilot", "opencode"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_drift_is_named_with_the_version_the_recorded_store_names(scenario: str, tmp_path: Path) -> None:
    truth_file = json.loads((GOLDEN / scenario / "truth.json").read_text())
    key = KEYS[truth_file["harness"]]
    home, truth = copy_golden(scenario, tmp_path)
    board = golden_board(_plugin(key), key, home, truth)
    versions = {row.harness_version for row in board.sessions}
    if key in VERSIONED:
        assert versions == {truth_file["harness_version"]}, versions
    else:
        assert versions == {None}, versions
