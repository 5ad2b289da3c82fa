"""Build every distribution and install ``cargento[all]`` into a fresh venv from them.

Proves the packaging a user gets: ``pip install --find-links dist 'cargento[all]'`` yields a
``cargento --diagnose`` with ten loaded harnesses, and a third-party harness (the tutorial's
example) installed beside it appears in --diagnose and on the board without touching core.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import orjson
import pytest

REPO = Path(__file__).resolve().parents[2]
HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")
PACKAGES = [
    "cargento-core",
    "cargento-web",
    *[f"cargento-harness-{h}" for h in HARNESSES],
    ".",
    "docs/plugins/example-harness",
]


@pytest.mark.slow
def test_install_all_from_built_distributions(tmp_path: Path) -> None:
    dist = Path(os.environ.get("CARGENTO_KEEP_DIST") or tmp_path / "dist")
    dist.mkdir(parents=True, exist_ok=True)
    for pkg in PACKAGES:
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO / pkg)],
            check=True,
            capture_output=True,
            timeout=600,
        )
    wheels = sorted(p.name for p in dist.glob("*.whl"))
    assert len([w for w in wheels if w.startswith("cargento")]) >= 14, wheels
    web = next(dist.glob("cargento_web-*.whl"))
    import zipfile

    with zipfile.ZipFile(web) as zf:
        names = zf.namelist()
    assert any(n.startswith("cargento_web/static/") for n in names), "the page's static files ship in the wheel"

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--find-links", str(dist), "cargento[all]"], check=True, timeout=900
    )
    exe = env_dir / "bin" / "cargento"
    clean = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")}
    out = subprocess.run([str(exe), "--diagnose", "--json"], capture_output=True, timeout=120, env=clean)
    assert out.returncode == 0, out.stderr
    report = orjson.loads(out.stdout)
    loaded = {p["name"]: p for p in report["plugins"] if p["status"] == "loaded"}
    assert set(loaded) == set(HARNESSES)
    for key in HARNESSES:
        assert loaded[key]["dist"] == f"cargento-harness-{key}" and loaded[key]["version"] == "0.1.0"

    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-index", "--find-links", str(dist), "cargento-harness-example"],
        check=True,
        timeout=300,
    )
    sessions = tmp_path / "home" / ".example-agent" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "third-party-1.jsonl").write_bytes(b'{"type":"prompt","text":"hello","at":"2026-11-30T10:00:00Z"}\n')
    diagnosed = subprocess.run([str(exe), "--diagnose"], capture_output=True, text=True, timeout=120, env=clean)
    assert diagnosed.returncode == 0 and "example" in diagnosed.stdout and "read, 1 session" in diagnosed.stdout
    board = subprocess.run([str(exe), "--json", "--all"], capture_output=True, timeout=120, env=clean)
    doc = orjson.loads(board.stdout)
    assert any(h["key"] == "example" and h["discovered"] for h in doc["harnesses"])
    assert any(s["harness"] == "example" and s["session_id"] == "third-party-1" for s in doc["sessions"])
