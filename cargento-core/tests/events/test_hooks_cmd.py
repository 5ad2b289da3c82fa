"""``cargento hooks``: merging into settings files, backups, refusals, and the bundled files."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.events import hooks_cmd
from cargento.events.hooks_cmd import (
    CLAUDE_EVENTS,
    CODEX_EVENTS,
    bundled_antigravity_hooks,
    bundled_claude_hooks,
    bundled_codex_hooks,
    is_ours,
    main,
)

REPO = Path(__file__).resolve().parents[3]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OTHER = {"type": "command", "command": "/usr/local/bin/other-tool --flag"}


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path)}


def run(argv: list[str], tmp_path: Path) -> int:
    return main(argv, env=env_for(tmp_path), now=NOW)


def settings(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    ("relative", "document"),
    [
        ("cargento-harness-claude/src/cargento_harness_claude/hooks/hooks.json", bundled_claude_hooks()),
        ("cargento-harness-codex/src/cargento_harness_codex/hooks/codex-hooks.json", bundled_codex_hooks()),
        ("cargento-harness-antigravity/src/cargento_harness_antigravity/hooks/hooks.json", bundled_antigravity_hooks()),
    ],
)
def test_bundled_hook_files_are_what_the_generator_writes(relative: str, document: dict[str, Any]) -> None:
    assert json.loads((REPO / relative).read_text()) == document


def test_bundled_files_use_the_console_scripts_not_a_checkout_path() -> None:
    for document in (bundled_claude_hooks(), bundled_codex_hooks(), bundled_antigravity_hooks()):
        text = json.dumps(document)
        checkout = str(Path(__file__).resolve().parents[3])
        assert checkout not in text and "cargento-event-hook" in text and ".py" not in text


def test_claude_bundle_registers_the_specified_events_and_only_session_end_is_sync() -> None:
    hooks = bundled_claude_hooks()["hooks"]
    assert set(hooks) == set(CLAUDE_EVENTS)
    for event, groups in hooks.items():
        (handler,) = groups[0]["hooks"]
        assert handler["async"] is (event != "SessionEnd")
        assert handler["command"] == "cargento-event-hook claude"


def test_codex_bundle_registers_the_eight_events_plus_interrupt_and_session_end() -> None:
    hooks = bundled_codex_hooks()["hooks"]
    assert set(hooks) == set(CODEX_EVENTS)
    spec = {"SessionStart", "UserPromptSubmit", "PermissionRequest", "PostToolUse", "Stop", "PostCompact", "SubagentStart", "SubagentStop"}
    assert spec <= set(hooks) and set(hooks) - spec == {"Interrupt", "SessionEnd"}
    assert "PreToolUse" not in hooks


def test_install_merges_without_touching_other_entries_and_keeps_a_backup(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    original = {"model": "opus", "hooks": {"Notification": [{"matcher": "", "hooks": [OTHER]}], "PreToolUse": [{"matcher": "Bash", "hooks": [OTHER]}]}}
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
    session_end = settings(path)["hooks"]["SessionEnd"]
    commands = [g["hooks"][0]["command"] for g in session_end]
    assert any("notify_hook http://127.0.0.1:9999/api/notify" in c for c in commands)
    assert any("event_hook claude 9999" in c for c in commands)
    run(["remove", "claude"], tmp_path)
    doc = settings(path)
    assert "Notification" not in doc["hooks"]
    assert ["event_hook" in g["hooks"][0]["command"] for g in doc["hooks"]["SessionEnd"]] == [True]
    run(["remove", "claude-events"], tmp_path)
    assert "hooks" not in settings(path)


def test_remove_keeps_other_handlers_in_a_shared_group(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    ours = {"type": "command", "command": "cargento-event-hook codex"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [OTHER, ours]}]}}))
    assert run(["remove", "codex"], tmp_path) == 0
    assert settings(path) == {"hooks": {"Stop": [{"hooks": [OTHER]}]}}


def test_codex_install_honours_codex_home(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    assert main(["install", "codex"], env={"HOME": str(tmp_path), "CODEX_HOME": str(home)}, now=NOW) == 0
    doc = settings(home / "hooks.json")
    assert set(doc["hooks"]) == set(CODEX_EVENTS)
    handler = doc["hooks"]["PermissionRequest"][0]["hooks"][0]
    assert "async" not in handler and "event_hook codex" in handler["command"]


def test_a_settings_file_that_does_not_parse_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ // a comment makes this not JSON")
    assert run(["install", "gemini"], tmp_path) == 1
    assert path.read_text() == "{ // a comment makes this not JSON"
    assert "not valid JSON" in capsys.readouterr().err
    assert list(path.parent.iterdir()) == [path]


def test_antigravity_status_line_is_refused_over_another_tools(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "antigravity-cli" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"statusLine": {"type": "command", "command": "agystatusline"}}))
    assert run(["install", "antigravity"], tmp_path) == 1
    assert settings(path)["statusLine"]["command"] == "agystatusline"
    path.write_text("{}")
    assert run(["install", "antigravity", "--script", "--port", "4600"], tmp_path) == 0
    assert settings(path)["statusLine"] == {"type": "command", "command": "cargento-statusline-hook 4600", "enabled": True}
    assert run(["remove", "antigravity"], tmp_path) == 0
    assert "statusLine" not in settings(path)


def test_opencode_copies_the_plugin_per_project_and_removes_it(tmp_path: Path) -> None:
    pytest.importorskip("cargento_harness_opencode")
    project = tmp_path / "proj"
    assert run(["install", "opencode"], tmp_path) == 1, "opencode needs --project"
    assert run(["install", "opencode", "--project", str(project)], tmp_path) == 0
    copy = project / ".opencode" / "plugin" / "cargento.js"
    assert "permission.asked" in copy.read_text()
    assert run(["remove", "opencode", "--project", str(project)], tmp_path) == 0
    assert not copy.exists()


def test_pi_extension_is_copied_and_a_foreign_file_is_not_overwritten(tmp_path: Path) -> None:
    pytest.importorskip("cargento_harness_pi")
    target = tmp_path / ".pi" / "agent" / "extensions" / "cargento.js"
    target.parent.mkdir(parents=True)
    target.write_text("export default function mine() {}")
    assert run(["install", "pi"], tmp_path) == 1
    target.unlink()
    assert run(["install", "pi"], tmp_path) == 0
    assert "ui.prompt.opened" in target.read_text()


def test_show_reports_what_is_installed_and_what_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / ".codex" / "hooks.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [OTHER]}]}}))
    run(["install", "codex"], tmp_path)
    capsys.readouterr()
    assert run([], tmp_path) == 0
    out = capsys.readouterr().out
    codex_line = next(line for line in out.splitlines() if line.startswith("codex"))
    assert f"{len(CODEX_EVENTS)}/{len(CODEX_EVENTS)} events installed" in codex_line and "1 other handler" in codex_line
    assert "not installed" in next(line for line in out.splitlines() if line.startswith("claude "))


def test_installed_command_runs_the_forwarder(tmp_path: Path) -> None:
    import subprocess

    run(["install", "codex"], tmp_path)
    command = settings(tmp_path / ".codex" / "hooks.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    done = subprocess.run(command, shell=True, input=b"{}", capture_output=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "CARGENTO_HOME": str(tmp_path / "none")})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_is_ours() -> None:
    assert is_ours({"command": '"/usr/bin/python3" -m cargento.forwarders.event_hook claude'})
    assert is_ours({"command": "cargento-notify-hook"})
    assert not is_ours(OTHER) and not is_ours("x") and not is_ours({"command": 3})


def test_unknown_target_and_missing_target(tmp_path: Path) -> None:
    assert run(["install"], tmp_path) == 2
    assert run(["install", "nope"], tmp_path) == 1
    assert hooks_cmd.TARGETS[0] == "claude"
    assert shutil.which("true") is not None


@pytest.mark.slow
def test_the_bundled_files_ship_in_the_harness_wheels(tmp_path: Path) -> None:
    import subprocess
    import sys
    import zipfile

    expected = {
        "claude": "cargento_harness_claude/hooks/hooks.json",
        "codex": "cargento_harness_codex/hooks/codex-hooks.json",
        "antigravity": "cargento_harness_antigravity/hooks/hooks.json",
        "opencode": "cargento_harness_opencode/hooks/opencode_plugin.js",
        "pi": "cargento_harness_pi/hooks/pi_extension.js",
    }
    for harness, member in expected.items():
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO / f"cargento-harness-{harness}")],
                       check=True, capture_output=True, timeout=600)
        (wheel,) = tmp_path.glob(f"cargento_harness_{harness}-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            assert member in zf.namelist()
