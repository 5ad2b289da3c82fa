"""Codex's hook target (hooks.json under CODEX_HOME) and its bundled codex-hooks.json."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.events.hooks_cmd import main
from cargento_harness_codex.hook_targets import EVENTS, bundled_hooks

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cargento_harness_codex"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OTHER = {"type": "command", "command": "/usr/local/bin/other-tool --flag"}


def run(argv: list[str], home: Path, **env: str) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "codex", **env}, now=NOW)


def settings(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def test_the_bundled_codex_hooks_json_is_what_the_generator_writes() -> None:
    assert json.loads((PACKAGE / "hooks" / "codex-hooks.json").read_text()) == bundled_hooks()
    assert "cargento-event-hook codex" in json.dumps(bundled_hooks()) and ".py" not in json.dumps(bundled_hooks())


def test_the_bundle_registers_the_eight_events_plus_interrupt_and_session_end() -> None:
    hooks = bundled_hooks()["hooks"]
    spec = {
        "SessionStart",
        "UserPromptSubmit",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "PostCompact",
        "SubagentStart",
        "SubagentStop",
    }
    assert set(hooks) == set(EVENTS) and spec <= set(hooks) and set(hooks) - spec == {"Interrupt", "SessionEnd"}


def test_install_honours_codex_home(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    assert run(["install", "codex"], tmp_path, CODEX_HOME=str(home)) == 0
    doc = settings(home / "hooks.json")
    assert set(doc["hooks"]) == set(EVENTS)
    handler = doc["hooks"]["PermissionRequest"][0]["hooks"][0]
    assert "async" not in handler and "event_hook codex" in handler["command"]


def test_remove_keeps_other_handlers_in_a_shared_group(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    ours = {"type": "command", "command": "cargento-event-hook codex"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [OTHER, ours]}]}}))
    assert run(["remove", "codex"], tmp_path) == 0
    assert settings(path) == {"hooks": {"Stop": [{"hooks": [OTHER]}]}}


def test_show_reports_what_is_installed_and_what_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [OTHER]}]}}))
    run(["install", "codex"], tmp_path)
    capsys.readouterr()
    assert run([], tmp_path) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("codex"))
    assert f"{len(EVENTS)}/{len(EVENTS)} events installed" in line and "1 other handler" in line


def test_the_installed_command_runs_the_forwarder(tmp_path: Path) -> None:
    run(["install", "codex"], tmp_path)
    command = settings(tmp_path / ".codex" / "hooks.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    done = subprocess.run(
        command,
        shell=True,
        input=b"{}",
        capture_output=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "CARGENTO_HOME": str(tmp_path / "none")},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
