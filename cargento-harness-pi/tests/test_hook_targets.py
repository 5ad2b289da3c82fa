"""Pi's hook target: the bundled extension copied under PI_CODING_AGENT_DIR or ~/.pi/agent."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cargento.events.hooks_cmd import main

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(argv: list[str], home: Path) -> int:
    return main(argv, env={"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "pi"}, now=NOW)


def test_the_extension_is_copied_and_a_foreign_file_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / ".pi" / "agent" / "extensions" / "cargento.js"
    target.parent.mkdir(parents=True)
    target.write_text("export default function mine() {}")
    assert run(["install", "pi"], tmp_path) == 1
    target.unlink()
    assert run(["install", "pi"], tmp_path) == 0
    assert "ui.prompt.opened" in target.read_text()
    assert run(["install", "pi"], tmp_path) == 0, "already current"
    assert run(["remove", "pi"], tmp_path) == 0 and not target.exists()
