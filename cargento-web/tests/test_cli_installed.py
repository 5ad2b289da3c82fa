"""The ``cargento`` command with every first-party harness installed: all ten load and are
diagnosed, ``cargento hooks`` lists their targets, and ``cargento`` serves through the
``cargento.serve`` entry point cargento-web registers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson

EXE = [sys.executable, "-m", "cargento.cli"]
HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_", "PI_CODING"))
    }
    full.update(env or {})
    return subprocess.run(EXE + args, capture_output=True, text=True, env=full, timeout=120)


def test_diagnose_lists_every_plugin_and_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    out = _run(["--diagnose", "--json"], {"HOME": str(home), "CODEX_HOME": str(tmp_path / "relocated")})
    assert out.returncode == 0, out.stderr
    report = orjson.loads(out.stdout)
    names = {p["name"]: p for p in report["plugins"]}
    for key in HARNESSES:
        assert names[key]["status"] == "loaded" and names[key]["dist"] == f"cargento-harness-{key}"
    assert report["relocation"]["CODEX_HOME"] == str(tmp_path / "relocated")
    codex = next(h for h in report["harnesses"] if h["key"] == "codex")
    assert any(
        loc["path"].startswith(str(tmp_path / "relocated")) and loc["found"] == "missing" for loc in codex["locations"]
    )


def test_hooks_show_lists_every_first_party_target(tmp_path: Path) -> None:
    out = _run(["hooks", "show"], {"HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    names = [line.split()[0] for line in out.stdout.splitlines()]
    first_party = [n for n in names if n.split("-")[0] in HARNESSES]
    assert first_party == ["antigravity", "claude", "claude-events", "codex", "gemini", "opencode", "pi"]


def test_the_web_distribution_registers_the_serve_entry_point() -> None:
    from cargento.cli import serve_implementation
    from cargento_web.cli import run

    assert serve_implementation() is run


def test_first_party_harnesses_all_load() -> None:
    from cargento.plugins import load_registry

    reg = load_registry(env={})
    assert set(HARNESSES) <= set(reg.loaded())
    for key in HARNESSES:
        assert reg.records[key].dist == f"cargento-harness-{key}"
        info = reg.harnesses[key]
        assert info.mark is not None and 1 <= len(info.mark.monogram) <= 3
