"""The maturity table: regenerated and compared with the committed docs/harnesses.md and
maturity.json; ``verified`` only where a recorded store publishes the reading; a reading
called absent is never published, on the recorded stores or on any demo board."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest
from cargento.maturity import READINGS, load
from cargento.testing import maturity
from cargento.testing.demo import DemoViewer
from cargento.testing.golden import golden_board
from cargento.testing.homes import copy_golden

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "testdata" / "golden"


def _installed() -> list[str]:
    keys = []
    for key in maturity.HARNESSES:
        try:
            importlib.import_module(f"cargento_harness_{key}.plugin")
        except ImportError:
            continue
        keys.append(key)
    return keys


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    if len(_installed()) != len(maturity.HARNESSES):
        pytest.skip("the table covers every harness of this repository; some are not installed")
    return maturity.build_table(maturity.infos(), GOLDEN)


def test_the_committed_table_is_the_generated_one(table: dict[str, Any]) -> None:
    markdown, data = maturity.paths(REPO)
    assert markdown.read_text() == maturity.render_markdown(table), "run: python -m cargento.testing.maturity"
    assert data.read_text() == maturity.render_json(table), "run: python -m cargento.testing.maturity"
    assert load() == json.loads(maturity.render_json(table)), "the packaged table is the committed one"


def test_verified_only_with_a_recorded_store_that_publishes_it(table: dict[str, Any]) -> None:
    found = maturity.recorded(GOLDEN)
    for key, entry in table["harnesses"].items():
        assert set(entry["readings"]) == set(READINGS)
        verified = {r for r, level in entry["readings"].items() if level == "verified"}
        if verified:
            assert key in found and entry["versions"], f"{key} claims verified readings with no recorded store"
            assert verified <= found[key][0], (key, verified - found[key][0])
        else:
            assert entry["versions"] == []


def test_a_claim_of_verified_without_a_recorded_store_is_refused(tmp_path: Path) -> None:
    golden = tmp_path / "golden"
    golden.mkdir()
    (golden / "index.json").write_text("[]")
    info = importlib.import_module("cargento_harness_claude.plugin").harness_info()
    built = maturity.build_table([info], golden)
    assert set(built["harnesses"]["claude"]["readings"].values()) == {"synthetic"}
    assert built["harnesses"]["claude"]["versions"] == []


def _absent(key: str) -> set[str]:
    return set(importlib.import_module(f"cargento_harness_{key}.plugin").harness_info().absent_readings)


@pytest.mark.parametrize("key", maturity.HARNESSES)
def test_a_reading_called_absent_is_never_published(key: str, tmp_path: Path) -> None:
    try:
        plugin = importlib.import_module(f"cargento_harness_{key}.plugin")
    except ImportError:
        pytest.skip(f"{key} is not installed")
    absent = _absent(key)
    viewer: DemoViewer[Any] = DemoViewer(tmp_path / "demo", plugin, key)
    for seconds in range(0, 361, 15):
        board = viewer.at(float(seconds))
        assert not (maturity.published(board) & absent), (seconds, maturity.published(board) & absent)
    rows = json.loads((GOLDEN / "index.json").read_text())
    for n, row in enumerate(r for r in rows if maturity.GOLDEN_HARNESS[r["harness"]] == key):
        home, truth = copy_golden(row["dir"], tmp_path / f"golden-{n}")
        assert not (maturity.published(golden_board(plugin, key, home, truth)) & absent), row["dir"]


def test_diagnose_json_carries_the_same_table(table: dict[str, Any], tmp_path: Path) -> None:
    from cargento.board import BoardBuilder
    from cargento.diagnose import as_dict, diagnose
    from cargento.plugins import load_registry
    from cargento.processes import StaticProcesses

    registry = load_registry(env={"HOME": str(tmp_path)})
    builder = BoardBuilder(registry, env={"HOME": str(tmp_path)}, home=tmp_path, processes=StaticProcesses())
    report = as_dict(diagnose(registry, builder))
    for h in report["harnesses"]:
        if h["key"] in table["harnesses"]:
            assert h["maturity"] == table["harnesses"][h["key"]]["readings"]
            assert h["versions_of_record"] == table["harnesses"][h["key"]]["versions"]
