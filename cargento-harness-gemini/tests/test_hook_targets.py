"""Gemini CLI's hook target: .gemini/settings.json under GEMINI_CLI_HOME or home."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento.events.hooks_cmd import main
from cargento_harness_gemini.hook_targets import EVENTS

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(argv: list[str], home: Path, **env: str) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "gemini", **env}, now=NOW)


def test_install_writes_synchronous_handlers_without_a_timeout(tmp_path: Path) -> None:
    relocated = tmp_path / "g"
    assert run(["install", "gemini"], tmp_path, GEMINI_CLI_HOME=str(relocated)) == 0
    doc = json.loads((relocated / ".gemini" / "settings.json").read_text())
    assert list(doc["hooks"]) == list(EVENTS)
    handler = doc["hooks"]["BeforeAgent"][0]["hooks"][0]
    assert "async" not in handler and "timeout" not in handler and "event_hook gemini" in handler["command"]


def test_a_settings_file_that_does_not_parse_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ // a comment makes this not JSON")
    assert run(["install", "gemini"], tmp_path) == 1
    assert path.read_text() == "{ // a comment makes this not JSON"
    assert "not valid JSON" in capsys.readouterr().err
    assert list(path.parent.iterdir()) == [path]
