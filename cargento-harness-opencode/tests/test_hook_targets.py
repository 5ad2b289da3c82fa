"""OpenCode's hook target: the passive plugin copied per project."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento.events.hooks_cmd import main

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(argv: list[str], home: Path) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "opencode"}, now=NOW)


def test_the_plugin_is_copied_per_project_and_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "proj"
    assert run(["install", "opencode"], tmp_path) == 1, "opencode needs --project"
    assert "pass --project DIR" in capsys.readouterr().err
    assert run(["install", "opencode", "--project", str(project)], tmp_path) == 0
    copy = project / ".opencode" / "plugin" / "cargento.js"
    assert "permission.asked" in copy.read_text()
    assert run(["remove", "opencode", "--project", str(project)], tmp_path) == 0
    assert not copy.exists()


def test_show_without_a_project_says_what_to_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([], tmp_path) == 0
    assert capsys.readouterr().out.startswith("opencode       opencode is installed per project: pass --project DIR")
