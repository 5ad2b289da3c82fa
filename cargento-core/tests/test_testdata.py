"""The recorded test data in ``testdata/``: found from a plain checkout, intact, and copied with
its recorded mtimes even when every file of the checkout carries the checkout time."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cargento.testing.homes import copy_golden, install_golden
from cargento.testing.testdata import (
    MissingTestData,
    captures_root,
    golden_root,
    require_captures_root,
    require_golden_root,
)

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"
SCENARIOS = [row["dir"] for row in json.loads((TESTDATA / "golden" / "index.json").read_text())]


@pytest.fixture
def no_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARGENTO_GOLDEN", raising=False)
    monkeypatch.delenv("CARGENTO_CAPTURES", raising=False)


def test_the_kit_finds_the_repository_copy_from_the_checkout(no_overrides: None) -> None:
    assert golden_root() == TESTDATA / "golden"
    assert captures_root() == TESTDATA / "captures"
    assert require_golden_root() == TESTDATA / "golden"
    assert require_captures_root() == TESTDATA / "captures"


def test_the_kit_finds_it_from_another_directory_of_the_checkout(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO / "cargento-web")
    assert golden_root() == TESTDATA / "golden"


def test_a_third_party_project_s_own_testdata_comes_first(
    no_overrides: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "their-plugin"
    (project / "testdata" / "golden").mkdir(parents=True)
    (project / "tests").mkdir()
    monkeypatch.chdir(project / "tests")
    assert golden_root() == project / "testdata" / "golden"
    assert captures_root() == TESTDATA / "captures", "no captures of their own: the kit's checkout has some"


def test_the_variables_override_the_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARGENTO_GOLDEN", str(tmp_path))
    monkeypatch.setenv("CARGENTO_CAPTURES", str(tmp_path))
    assert golden_root() == tmp_path
    assert captures_root() == tmp_path


def test_a_variable_naming_no_folder_is_an_error_not_a_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARGENTO_GOLDEN", str(tmp_path / "absent"))
    assert golden_root() is None
    with pytest.raises(MissingTestData, match=r"\$CARGENTO_GOLDEN is .*absent.* not a directory"):
        require_golden_root()
    with pytest.raises(MissingTestData):
        copy_golden(SCENARIOS[0], tmp_path / "dest")


def test_no_testdata_anywhere_names_where_it_looked(
    no_overrides: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("cargento.testing.testdata.__file__", str(tmp_path / "kit" / "testdata.py"))
    assert captures_root() is None
    with pytest.raises(MissingTestData, match=re.escape(str(tmp_path))) as raised:
        require_captures_root()
    assert "$CARGENTO_CAPTURES" in str(raised.value)


def test_an_unknown_scenario_is_named(no_overrides: None, tmp_path: Path) -> None:
    with pytest.raises(MissingTestData, match="no-such-scenario"):
        copy_golden("claude-code-2.1.332/no-such-scenario", tmp_path)


def test_every_recorded_file_is_in_the_manifest_with_its_bytes() -> None:
    listed: dict[str, str] = {}
    for line in (TESTDATA / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ", 1)
        listed[name] = digest
    present = {
        str(path.relative_to(TESTDATA))
        for folder in ("golden", "captures")
        for path in (TESTDATA / folder).rglob("*")
        if path.is_file()
    }
    assert present == set(listed), "SHA256SUMS and testdata/ disagree on which files exist"
    changed = [
        name for name, digest in listed.items() if hashlib.sha256((TESTDATA / name).read_bytes()).hexdigest() != digest
    ]
    assert changed == [], "recorded files whose bytes changed (line endings? LFS pointers?)"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_store_file_has_the_size_its_snapshot_recorded(scenario: str) -> None:
    src = TESTDATA / "golden" / scenario
    snapshot = json.loads((src / "_snapshot.json").read_text())
    assert snapshot["files"]
    for entry in snapshot["files"]:
        assert (src / entry["path"]).stat().st_size == entry["size"], entry["path"]
    truth = json.loads((src / "truth.json").read_text())
    assert truth["snapshot_at"] == pytest.approx(snapshot["snapshot_at"], abs=120)


@pytest.fixture
def fresh_clone_golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The golden tree as a fresh clone has it: same bytes, every mtime the checkout time."""
    root = tmp_path / "clone" / "testdata" / "golden"
    shutil.copytree(TESTDATA / "golden", root, copy_function=shutil.copyfile)
    checkout = 1_900_000_000.0
    for path in root.rglob("*"):
        os.utime(path, (checkout, checkout))
    monkeypatch.setenv("CARGENTO_GOLDEN", str(root))
    return root


def test_copies_get_every_recorded_mtime_back_from_a_fresh_clone(fresh_clone_golden: Path, tmp_path: Path) -> None:
    for scenario in SCENARIOS:
        home, truth = copy_golden(scenario, tmp_path / "copies")
        snapshot = json.loads((fresh_clone_golden / scenario / "_snapshot.json").read_text())
        assert (
            truth["snapshot_at"]
            == json.loads((fresh_clone_golden / scenario / "truth.json").read_text())["snapshot_at"]
        )
        for entry in snapshot["files"]:
            assert (home / entry["path"]).stat().st_mtime == pytest.approx(entry["mtime"], abs=1e-3), entry["path"]
    checked = subprocess.run(
        [sys.executable, str(fresh_clone_golden / "golden_mtimes.py"), "check", str(tmp_path / "copies")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout
    assert "check: 0 problem(s)" in checked.stdout


def test_install_golden_restores_mtimes_from_a_fresh_clone(fresh_clone_golden: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    install_golden("opencode-1.18.33/A-single-turn", home, ".local")
    snapshot = json.loads((fresh_clone_golden / "opencode-1.18.33" / "A-single-turn" / "_snapshot.json").read_text())
    for entry in snapshot["files"]:
        assert (home / entry["path"]).stat().st_mtime == pytest.approx(entry["mtime"], abs=1e-3), entry["path"]


_TEXT = {".py", ".md", ".toml", ".txt", ".js", ".json", ".cfg", ".ini", ".yml", ".yaml", ".sh", ""}
_SKIP_DIRS = {"testdata", "node_modules", "build", "dist", "__pycache__"}
_OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(golden|captures)\b|(?<![\w$.}-])/" + "work/")


def test_nothing_outside_testdata_reaches_for_a_sibling_folder() -> None:
    """The suite stands on its own: no file of the repository points at a ``shared`` folder
    beside the checkout or at the recording machine's work folder (the recorded data's own
    READMEs, under testdata/, excepted)."""
    hits = []
    for dirpath, dirnames, filenames in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if (d == ".ci" or not d.startswith(".")) and d not in _SKIP_DIRS]
        for name in filenames:
            path = Path(dirpath) / name
            if name == ".git" or path.suffix not in _TEXT or path.stat().st_size > 2_000_000:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            hits += [f"{path.relative_to(REPO)}: {m.group(0)}" for m in _OUTSIDE.finditer(text)]
    assert hits == []
