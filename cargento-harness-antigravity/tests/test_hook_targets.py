"""Antigravity's hook target (the one status line) and its bundled plugin hooks.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from cargento.events.hooks_cmd import main
from cargento_harness_antigravity.hook_targets import bundled_hooks

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cargento_harness_antigravity"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(argv: list[str], home: Path) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "antigravity"}, now=NOW)


def test_the_bundled_hooks_json_is_what_the_generator_writes() -> None:
    assert json.loads((PACKAGE / "hooks" / "hooks.json").read_text()) == bundled_hooks()
    assert "cargento-event-hook antigravity --event PostInvocation" in json.dumps(bundled_hooks())


def test_the_status_line_is_refused_over_another_tools(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "antigravity-cli" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"statusLine": {"type": "command", "command": "agystatusline"}}))
    assert run(["install", "antigravity"], tmp_path) == 1
    assert json.loads(path.read_text())["statusLine"]["command"] == "agystatusline"
    path.write_text("{}")
    assert run(["install", "antigravity", "--script", "--port", "4600"], tmp_path) == 0
    assert json.loads(path.read_text())["statusLine"] == {
        "type": "command",
        "command": "cargento-statusline-hook 4600",
        "enabled": True,
    }
    assert run(["remove", "antigravity"], tmp_path) == 0
    assert "statusLine" not in json.loads(path.read_text())
