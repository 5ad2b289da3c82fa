"""``cargento hooks`` over the targets plugins declare: the generic settings-merge engine in
its three styles (settings hooks, a status line, a copied adapter file), against fake
plugins only. Each first-party harness tests its own targets in its own package."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento import hookimpl
from cargento.events import hooks_cmd
from cargento.events.hooks_cmd import declared_targets, is_ours, main
from cargento.events.targets import HookTarget
from cargento.plugins import Registry, load_registry
from cargento.testing.fakes import FakeHarness

REPO = Path(__file__).resolve().parents[3]
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OTHER = {"type": "command", "command": "/usr/local/bin/other-tool --flag"}
EVENTS = ("Begin", "Finish", "End")


class Hooked(FakeHarness):
    """A harness with all three target styles, its paths under ``$FAKE_DIR`` or ``~/.fake``."""

    @hookimpl
    def hook_targets(self, env: dict[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
        base = Path(env["FAKE_DIR"]) if env.get("FAKE_DIR") else home / ".fake"
        return (
            HookTarget(
                name=self.key,
                style="settings",
                path=base / "settings.json",
                forwarder="event_hook",
                arguments=(self.key,),
                events=EVENTS,
                sync_events=("End",),
            ),
            HookTarget(
                name=f"{self.key}-notify",
                style="settings",
                path=base / "settings.json",
                forwarder="notify_hook",
                port_form="notify_url",
                events=("Finish",),
            ),
            HookTarget(
                name=f"{self.key}-status", style="status_line", path=base / "status.json", forwarder="statusline_hook"
            ),
            HookTarget(
                name=f"{self.key}-adapter",
                style="adapter_file",
                path=None if project is None else project / ".fake" / "cargento.js",
                unavailable=None if project is not None else "fake-adapter is per project: pass --project DIR",
                adapter_text="// cargento adapter\n",
            ),
        )


class Failing(FakeHarness):
    @hookimpl
    def hook_targets(self, env: dict[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
        raise RuntimeError("boom")


def registry() -> Registry:
    return load_registry(entry_points=False, extra=[("fake", Hooked("fake")), ("broken", Failing("broken"))])


def run(argv: list[str], home: Path, **env: str) -> int:
    return main(argv, env={"HOME": str(home), **env}, now=NOW, registry=registry())


def settings(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text())
    return value


def test_hook_hook_targets_show_lists_every_target_the_plugins_declare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([], tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["fake", "fake-notify", "fake-status", "fake-adapter"]
    assert (
        lines[0]
        == f"fake           not installed; 0 other handler(s) left alone: {tmp_path / '.fake' / 'settings.json'}"
    )
    assert lines[3] == "fake-adapter   fake-adapter is per project: pass --project DIR"


def test_a_failing_plugin_contributes_no_target_and_records_a_fault(tmp_path: Path) -> None:
    found = registry()
    names = [t.name for t in declared_targets(found, {"HOME": str(tmp_path)}, None)]
    assert names == ["fake", "fake-notify", "fake-status", "fake-adapter"]
    assert [f.hook for f in found.faults["broken"]] == ["hook_targets"]


def test_show_with_no_plugin_declaring_targets_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake"))])
    assert main([], env={"HOME": str(tmp_path)}, now=NOW, registry=plain) == 0
    assert capsys.readouterr().out == "no loaded harness plugin declares a hook target\n"


def test_install_merges_without_touching_other_entries_and_keeps_a_backup(tmp_path: Path) -> None:
    path = tmp_path / ".fake" / "settings.json"
    path.parent.mkdir()
    original: dict[str, Any] = {
        "model": "x",
        "hooks": {"Begin": [{"matcher": "", "hooks": [OTHER]}], "Other": [{"matcher": "B", "hooks": [OTHER]}]},
    }
    path.write_text(json.dumps(original))
    assert run(["install", "fake"], tmp_path) == 0
    doc = settings(path)
    assert doc["model"] == "x" and doc["hooks"]["Other"] == original["hooks"]["Other"]
    begin = doc["hooks"]["Begin"]
    assert begin[0] == {"matcher": "", "hooks": [OTHER]}
    assert begin[1]["hooks"][0] == {
        "type": "command",
        "command": begin[1]["hooks"][0]["command"],
        "timeout": 10,
        "async": True,
    }
    assert "cargento.forwarders.event_hook fake" in begin[1]["hooks"][0]["command"]
    assert doc["hooks"]["End"][0]["hooks"][0]["async"] is False
    backup = path.with_name("settings.json.cargento-backup-20261130120000")
    assert json.loads(backup.read_text()) == original


def test_install_twice_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(["install", "fake", "--script"], tmp_path)
    path = tmp_path / ".fake" / "settings.json"
    first = path.read_text()
    assert run(["install", "fake", "--script"], tmp_path) == 0
    assert path.read_text() == first
    assert "already has" in capsys.readouterr().out


def test_two_targets_share_a_file_and_remove_separately(tmp_path: Path) -> None:
    run(["install", "fake", "fake-notify", "--port", "9999"], tmp_path, FAKE_DIR=str(tmp_path / "moved"))
    path = tmp_path / "moved" / "settings.json"
    commands = [g["hooks"][0]["command"] for g in settings(path)["hooks"]["Finish"]]
    assert any("notify_hook http://127.0.0.1:9999/api/notify" in c for c in commands)
    assert any("event_hook fake 9999" in c for c in commands)
    run(["remove", "fake-notify"], tmp_path, FAKE_DIR=str(tmp_path / "moved"))
    assert ["event_hook" in g["hooks"][0]["command"] for g in settings(path)["hooks"]["Finish"]] == [True]
    run(["remove", "fake"], tmp_path, FAKE_DIR=str(tmp_path / "moved"))
    assert "hooks" not in settings(path)


def test_a_settings_file_that_does_not_parse_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / ".fake" / "settings.json"
    path.parent.mkdir()
    path.write_text("{ // not JSON")
    assert run(["install", "fake"], tmp_path) == 1
    assert path.read_text() == "{ // not JSON" and "not valid JSON" in capsys.readouterr().err
    assert list(path.parent.iterdir()) == [path]


def test_a_status_line_is_refused_over_another_tools(tmp_path: Path) -> None:
    path = tmp_path / ".fake" / "status.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"statusLine": {"type": "command", "command": "theirs"}}))
    assert run(["install", "fake-status"], tmp_path) == 1
    assert settings(path)["statusLine"]["command"] == "theirs"
    path.write_text("{}")
    assert run(["install", "fake-status", "--script", "--port", "4600"], tmp_path) == 0
    assert settings(path)["statusLine"] == {
        "type": "command",
        "command": "cargento-statusline-hook 4600",
        "enabled": True,
    }
    assert run(["remove", "fake-status"], tmp_path) == 0
    assert "statusLine" not in settings(path)


def test_an_adapter_file_is_copied_never_over_a_foreign_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    assert run(["install", "fake-adapter"], tmp_path) == 1
    copy = project / ".fake" / "cargento.js"
    copy.parent.mkdir(parents=True)
    copy.write_text("export default function mine() {}")
    assert run(["install", "fake-adapter", "--project", str(project)], tmp_path) == 1
    copy.unlink()
    assert run(["install", "fake-adapter", "--project", str(project)], tmp_path) == 0
    assert copy.read_text() == "// cargento adapter\n"
    capsys.readouterr()
    assert run(["show", "--project", str(project)], tmp_path) == 0
    assert f"fake-adapter   installed: {copy}" in capsys.readouterr().out
    assert run(["remove", "fake-adapter", "--project", str(project)], tmp_path) == 0
    assert not copy.exists()


def test_is_ours() -> None:
    assert is_ours({"command": '"/usr/bin/python3" -m cargento.forwarders.event_hook fake'})
    assert is_ours({"command": "cargento-notify-hook"})
    assert not is_ours(OTHER) and not is_ours("x") and not is_ours({"command": 3})


def test_unknown_target_and_missing_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["install"], tmp_path) == 2
    assert run(["install", "nope"], tmp_path) == 1
    assert "unknown target 'nope' (choose from fake, fake-notify, fake-status, fake-adapter)" in capsys.readouterr().err


def test_the_old_constants_read_the_installed_plugins_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks_cmd, "_registry", lambda env: registry())
    with pytest.warns(DeprecationWarning):
        assert hooks_cmd.TARGETS == ("fake", "fake-notify", "fake-status", "fake-adapter")
    with pytest.warns(DeprecationWarning):
        assert hooks_cmd.FAKE_EVENTS == EVENTS
    with pytest.warns(DeprecationWarning):
        assert hooks_cmd.FAKE_NOTIFY_EVENTS == ("Finish",)
    with pytest.raises(AttributeError):
        hooks_cmd.NOPE_EVENTS  # noqa: B018


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
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "-q",
                "-w",
                str(tmp_path),
                str(REPO / f"cargento-harness-{harness}"),
            ],
            check=True,
            capture_output=True,
            timeout=600,
        )
        (wheel,) = tmp_path.glob(f"cargento_harness_{harness}-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            assert member in zf.namelist()
