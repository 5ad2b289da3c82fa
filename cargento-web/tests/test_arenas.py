"""The server caps glibc's malloc arenas before its threads start (docs/benchmark.md)."""

from __future__ import annotations

import platform
import subprocess
import sys
from typing import Any

import pytest
from cargento.cli import Options
from cargento_web import cli
from cargento_web.arenas import limit_arenas

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="arena tuning is glibc's")
def test_the_cap_is_set_on_glibc() -> None:
    # In a fresh interpreter: the cap applies to the process, not to this test run.
    code = "from cargento_web.arenas import limit_arenas; print(limit_arenas(env={}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"


def test_a_cap_the_person_chose_is_left_alone() -> None:
    assert limit_arenas(env={"MALLOC_ARENA_MAX": "8"}) is False


def test_serving_caps_the_arenas_before_anything_else_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    def arenas() -> bool:
        order.append("arenas")
        return True

    monkeypatch.setattr(cli, "limit_arenas", arenas)

    def environment(options: Options) -> object:
        order.append("environment")
        return object()

    def serve(options: Options, served: Any, *, log_path: str | None = None) -> int:
        order.append("serve")
        return 0

    monkeypatch.setattr(cli, "serving_environment", environment)
    monkeypatch.setattr(cli, "serve", serve)
    assert cli.serve_options(Options()) == 0
    assert order == ["arenas", "environment", "serve"]
