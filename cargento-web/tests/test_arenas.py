"""The server tunes glibc's malloc before its threads start: two arenas and a fixed mmap
threshold (docs/benchmark.md, "Whole processes")."""

from __future__ import annotations

import platform
import subprocess
import sys
from typing import Any

import pytest
from cargento.cli import Options
from cargento_web import cli
from cargento_web.arenas import fix_mmap_threshold, limit_arenas

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="arena tuning is glibc's")
def test_the_cap_is_set_on_glibc() -> None:
    # In a fresh interpreter: the cap applies to the process, not to this test run.
    code = "from cargento_web.arenas import fix_mmap_threshold, limit_arenas; print(limit_arenas(env={}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"


def test_a_cap_the_person_chose_is_left_alone() -> None:
    assert limit_arenas(env={"MALLOC_ARENA_MAX": "8"}) is False


_LARGE_BLOCK = r"""
import ctypes, sys
from cargento_web.arenas import fix_mmap_threshold

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = Info
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold(env={})
first = bytearray(4 << 20)  # mapped, and on its free glibc raises its threshold to 4 MiB
del first
before = mallinfo2().hblkhd
later = bytearray(1 << 20)  # a document's worth
print("mapped" if mallinfo2().hblkhd - before >= 1 << 20 else "heap")
"""


@pytest.mark.skipif(not GLIBC, reason="malloc tuning is glibc's")
def test_a_large_block_keeps_its_own_mapping_after_a_larger_one_was_freed() -> None:
    def where(mode: str) -> str:
        out = subprocess.run(
            [sys.executable, "-c", _LARGE_BLOCK, mode], capture_output=True, text=True, check=True, timeout=60
        )
        return out.stdout.strip()

    assert where("default") == "heap", "glibc's own threshold moved up (what the fixed one prevents)"
    assert where("fixed") == "mapped"


def test_a_threshold_the_person_chose_is_left_alone() -> None:
    assert fix_mmap_threshold(env={"MALLOC_MMAP_THRESHOLD_": "65536"}) is False
    assert fix_mmap_threshold(env={"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536"}) is False
    assert limit_arenas(env={"GLIBC_TUNABLES": "glibc.malloc.arena_max=4"}) is False


def test_serving_caps_the_arenas_before_anything_else_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    def arenas() -> bool:
        order.append("arenas")
        return True

    monkeypatch.setattr(cli, "tune_malloc", arenas)

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
