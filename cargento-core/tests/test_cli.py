"""The ``cargento`` command: bad input is one line, --json/--as-of/--diagnose work."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
from cargento.cli import main

EXE = [sys.executable, "-m", "cargento.cli"]


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_", "PI_CODING"))}
    full.update(env or {})
    return subprocess.run(EXE + args, capture_output=True, text=True, env=full, timeout=120)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--bogus"], "unrecognized arguments"),
        (["--port", "70000"], "1 to 65535"),
        (["--port", "0"], "1 to 65535"),
        (["--port", "abc"], "whole number"),
        (["--host", "192.168.1.5"], "127.0.0.1"),
        (["--host", "localhost"], "0.0.0.0"),
        (["--window-hours", "-3"], "positive"),
        (["--as-of", "tomorrow"], "ISO-8601"),
        (["--status", "--stop"], "choose one"),
    ],
)
def test_bad_input_is_one_clear_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_json_snapshot_with_as_of_on_a_fixture_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    sess = home / ".factory" / "sessions" / "-w-p"
    sess.mkdir(parents=True)
    (sess / "abc.jsonl").write_text('{"type":"session_start","id":"abc"}\n')
    os.utime(sess / "abc.jsonl", (1796000000, 1796000000))
    out = _run(["--json", "--as-of", "2026-11-30T00:00:00Z"], {"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "droid"})
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(out.stdout)
    assert doc["schema"] == 1 and doc["as_of"] == "2026-11-30T00:00:00Z"
    assert [h["key"] for h in doc["harnesses"] if h["plugin"]["status"] == "loaded"] == ["droid"]
    later = _run(["--json", "--as-of", "2027-06-01T00:00:00Z"], {"HOME": str(home), "CARGENTO_LOAD_PLUGINS": "droid"})
    assert orjson.loads(later.stdout)["sessions"] == [], "outside the window as of a later moment"


def test_diagnose_lists_every_plugin_and_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    out = _run(["--diagnose", "--json"], {"HOME": str(home), "CODEX_HOME": str(tmp_path / "relocated")})
    assert out.returncode == 0, out.stderr
    report = orjson.loads(out.stdout)
    names = {p["name"]: p for p in report["plugins"]}
    for key in ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid"):
        assert names[key]["status"] == "loaded" and names[key]["dist"] == f"cargento-harness-{key}"
    assert report["relocation"]["CODEX_HOME"] == str(tmp_path / "relocated")
    codex = next(h for h in report["harnesses"] if h["key"] == "codex")
    assert any(loc["path"].startswith(str(tmp_path / "relocated")) and loc["found"] == "missing" for loc in codex["locations"])
    text = _run(["--diagnose"], {"HOME": str(home)})
    assert "cargento.harness" in text.stdout and "missing" in text.stdout


def test_diagnose_exits_non_zero_when_a_plugin_fails(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "xbroken_plugin.py").write_text("raise RuntimeError('broken on import')\n")
    info = site / "cargento_harness_xbroken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cargento-harness-xbroken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("[cargento.harness]\nxbroken = xbroken_plugin\n"))
    out = _run(["--diagnose"], {"HOME": str(tmp_path), "PYTHONPATH": str(site)})
    assert out.returncode == 1
    assert "xbroken" in out.stdout and "import-error" in out.stdout and "broken on import" in out.stdout
    assert "claude" in out.stdout, "the other plugins still load"
    blocked = _run(["--diagnose"], {"HOME": str(tmp_path), "PYTHONPATH": str(site), "CARGENTO_BLOCK_PLUGINS": "xbroken"})
    assert blocked.returncode == 0


def test_hooks_subcommand_and_console_scripts_are_wired(tmp_path: Path) -> None:
    out = _run(["hooks", "show", "claude"], {"HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert "claude" in out.stdout and "not installed" in out.stdout
    assert _run(["hooks", "install", "claude"], {"HOME": str(tmp_path)}).returncode == 0
    settings = (tmp_path / ".claude" / "settings.json").read_text()
    assert "notify_hook" in settings or "cargento-notify-hook" in settings
    bindir = Path(sys.executable).parent
    for script in ("cargento-notify-hook", "cargento-event-hook", "cargento-statusline-hook"):
        done = subprocess.run([str(bindir / script)], input=b"{}", capture_output=True, timeout=60,
                              env={"HOME": str(tmp_path), "CARGENTO_HOME": str(tmp_path / "none"), "PATH": os.environ["PATH"]})
        assert done.returncode == 0 and done.stdout == b"", (script, done)
