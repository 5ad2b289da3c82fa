"""Claude Code's hook targets (path 2 and path 3 in one settings file) and its bundled hooks.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.events.hooks_cmd import main
from cargento_harness_claude.hook_targets import EVENTS, bundled_hooks

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cargento_harness_claude"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OTHER = {"type": "command", "command": "/usr/local/bin/other-tool --flag"}


def run(argv: list[str], home: Path, **env: str) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "claude", **env}, now=NOW)


def settings(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def test_the_bundled_hooks_json_is_what_the_generator_writes() -> None:
    assert json.loads((PACKAGE / "hooks" / "hooks.json").read_text()) == bundled_hooks()


def test_the_bundle_uses_the_console_script_and_only_session_end_is_sync() -> None:
    document = bundled_hooks()
    assert str(PACKAGE.parents[1]) not in json.dumps(document) and ".py" not in json.dumps(document)
    assert set(document["hooks"]) == set(EVENTS)
    for event, groups in document["hooks"].items():
        (handler,) = groups[0]["hooks"]
        assert handler["async"] is (event != "SessionEnd")
        assert handler["command"] == "cargento-event-hook claude"


def test_install_merges_without_touching_other_entries_and_keeps_a_backup(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    original: dict[str, Any] = {
        "model": "opus",
        "hooks": {
            "Notification": [{"matcher": "", "hooks": [OTHER]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [OTHER]}],
        },
    }
    path.write_text(json.dumps(original))
    assert run(["install", "claude"], tmp_path) == 0
    doc = settings(path)
    assert doc["model"] == "opus" and doc["hooks"]["PreToolUse"] == original["hooks"]["PreToolUse"]
    notification = doc["hooks"]["Notification"]
    assert notification[0] == {"matcher": "", "hooks": [OTHER]}
    assert "cargento.forwarders.notify_hook" in notification[1]["hooks"][0]["command"]
    assert notification[1]["hooks"][0]["async"] is True
    assert doc["hooks"]["SessionEnd"][0]["hooks"][0]["async"] is False
    backup = path.with_name("settings.json.cargento-backup-20261130120000")
    assert json.loads(backup.read_text()) == original


def test_install_twice_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(["install", "claude", "--script"], tmp_path)
    first = (tmp_path / ".claude" / "settings.json").read_text()
    assert run(["install", "claude", "--script"], tmp_path) == 0
    assert (tmp_path / ".claude" / "settings.json").read_text() == first
    assert "already has" in capsys.readouterr().out


def test_path_two_and_path_three_coexist_and_remove_separately(tmp_path: Path) -> None:
    run(["install", "claude", "claude-events", "--port", "9999"], tmp_path)
    path = tmp_path / ".claude" / "settings.json"
    commands = [g["hooks"][0]["command"] for g in settings(path)["hooks"]["SessionEnd"]]
    assert any("notify_hook http://127.0.0.1:9999/api/notify" in c for c in commands)
    assert any("event_hook claude 9999" in c for c in commands)
    run(["remove", "claude"], tmp_path)
    doc = settings(path)
    assert "Notification" not in doc["hooks"]
    assert ["event_hook" in g["hooks"][0]["command"] for g in doc["hooks"]["SessionEnd"]] == [True]
    run(["remove", "claude-events"], tmp_path)
    assert "hooks" not in settings(path)


def test_claude_config_dir_relocates_the_settings_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path / "cfg"
    assert run(["install", "claude-events"], tmp_path, CLAUDE_CONFIG_DIR=str(elsewhere)) == 0
    assert set(settings(elsewhere / "settings.json")["hooks"]) == set(EVENTS)
    capsys.readouterr()
    assert run([], tmp_path, CLAUDE_CONFIG_DIR=str(elsewhere)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("claude-events") and f"{len(EVENTS)}/{len(EVENTS)} events installed" in line for line in lines
    )
    assert "not installed" in next(line for line in lines if line.startswith("claude "))
