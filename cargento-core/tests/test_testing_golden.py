"""The golden helpers of the test kit: a scenario's store installed into a home, read as of its snapshot."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento.testing.fakes import FakeHarness, FakeSession, RaisingRead
from cargento.testing.golden import golden_board, snapshot_moment
from cargento.testing.homes import copy_golden, install_golden

SNAPSHOT_AT = 1796025701.5


@pytest.fixture
def golden_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A one-scenario golden tree, read-only like the shared one, with recorded mtimes."""
    root = tmp_path / "golden"
    scenario = root / "toy-1.0" / "A-turn"
    store = scenario / ".toy" / "sessions"
    store.mkdir(parents=True)
    (store / "s1.jsonl").write_text('{"type":"prompt"}\n')
    (scenario / "truth.json").write_text(json.dumps({"snapshot_at": SNAPSHOT_AT, "session_ids": ["s1"]}))
    (scenario / "_snapshot.json").write_text(
        json.dumps(
            {
                "snapshot_at": SNAPSHOT_AT,
                "files": [{"path": ".toy/sessions/s1.jsonl", "mtime": 1796025600.25}],
            }
        )
    )
    for path in (store / "s1.jsonl", store, store.parent):
        os.chmod(path, 0o555 if path.is_dir() else 0o444)
    monkeypatch.setenv("CARGENTO_GOLDEN", str(root))
    return scenario


def test_install_golden_copies_only_the_store_with_its_recorded_mtimes(golden_tree: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    truth = install_golden("toy-1.0/A-turn", home, ".toy")
    assert truth["session_ids"] == ["s1"]
    copied = home / ".toy" / "sessions" / "s1.jsonl"
    assert copied.read_text() == '{"type":"prompt"}\n'
    assert copied.stat().st_mtime == pytest.approx(1796025600.25)
    assert sorted(p.name for p in home.iterdir()) == [".toy"]
    copied.write_text("writable, so the test's tmp dir can be cleaned")
    assert (golden_tree / ".toy" / "sessions" / "s1.jsonl").read_text() == '{"type":"prompt"}\n'


def test_copy_golden_still_copies_the_whole_scenario(golden_tree: Path, tmp_path: Path) -> None:
    home, truth = copy_golden("toy-1.0/A-turn", tmp_path / "dest")
    assert truth["snapshot_at"] == SNAPSHOT_AT
    assert (home / "truth.json").is_file()
    assert (home / ".toy" / "sessions" / "s1.jsonl").stat().st_mtime == pytest.approx(1796025600.25)


def test_golden_board_reads_as_of_the_snapshot_and_fails_on_faults(tmp_path: Path) -> None:
    truth = {"snapshot_at": SNAPSHOT_AT}
    assert snapshot_moment(truth) == datetime.fromtimestamp(SNAPSHOT_AT, UTC)
    board = golden_board(FakeHarness("toy", [FakeSession("s1", age_s=7)]), "toy", tmp_path, truth)
    [row] = board.sessions
    assert row.last_active_at is not None
    assert (snapshot_moment(truth) - row.last_active_at).total_seconds() == pytest.approx(7)
    with pytest.raises(AssertionError, match="store is locked"):
        golden_board(RaisingRead("toy", [FakeSession("s1")]), "toy", tmp_path, truth)
