from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

pytest_plugins = ["cargento.testing.fixtures"]


@pytest.fixture
def fake_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Install a throwaway distribution with one ``cargento.harness`` entry point on sys.path."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    monkeypatch.syspath_prepend(str(site))

    def make(dist: str, ep_name: str, module: str, source: str, *, requires: str = "cargento-core==0.1.*") -> Path:
        (site / f"{module}.py").write_text(textwrap.dedent(source))
        info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\nRequires-Dist: {requires}\n"
        )
        (info / "entry_points.txt").write_text(f"[cargento.harness]\n{ep_name} = {module}\n")
        sys.modules.pop(module, None)
        import importlib

        importlib.invalidate_caches()
        return site

    return make


_GOOD_PLUGIN = """
from cargento import hookimpl, HarnessInfo, Discovery, SessionReading

@hookimpl
def harness_info():
    return HarnessInfo(key="{key}", label="Good {key}")

@hookimpl
def discover(ctx):
    return Discovery()

@hookimpl
def read_session(ref, ctx):
    return None
"""


@pytest.fixture
def good_plugin() -> str:
    """Source of a minimal valid plugin module; format it with ``key=``."""
    return _GOOD_PLUGIN
