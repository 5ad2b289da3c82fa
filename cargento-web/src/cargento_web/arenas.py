"""The server's malloc tuning (glibc): fewer arenas and a fixed mmap threshold.

glibc gives each thread that allocates its own arena, up to eight per core, and memory freed in
one arena is not reused by another. The server builds boards on a worker thread per harness
and renders on AnyIO's thread pool, so a board's short-lived objects end up spread over a dozen
arenas, each keeping its high-water mark resident. Two arenas measured about 5 MB less peak
RSS at 640 sessions after a minute of appends (docs/benchmark.md, "Whole processes"), with no
difference in the build times.

glibc also serves a large block (128 KiB by default) with its own ``mmap``, returned to the
system when freed, but raises that threshold to the size of each such block freed, up to 32
MiB: after the first ``/api/data`` document (about 1 MB at 640 sessions) and the first big
lists of a build are freed, every later one is carved out of the heap instead, where what is
freed between builds stays resident around what is still held. At 640 sessions that grew the
heap to 23.5 MB holding 15 MB, and 8 MB of free space inside it after a minute of appends. A
fixed threshold keeps large, short-lived blocks out of the heap: peak RSS 80 -> 75 MB
there, the heap 13 MB, with no difference in the build or render times.

A ``MALLOC_ARENA_MAX`` or ``MALLOC_MMAP_THRESHOLD_`` the person set (or a ``GLIBC_TUNABLES``
naming the tunable) is left alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["ARENAS", "MMAP_THRESHOLD", "fix_mmap_threshold", "limit_arenas", "tune_malloc"]

#: The arenas the server's allocations share.
ARENAS = 2
#: Blocks at least this large get their own mapping, returned to the system when freed.
MMAP_THRESHOLD = 128 * 1024
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h
_M_ARENA_MAX = -8


def _mallopt() -> Any | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no such tuning)
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt


def _chosen(env: Mapping[str, str], variable: str, tunable: str) -> bool:
    return variable in env or tunable in env.get("GLIBC_TUNABLES", "")


def limit_arenas(count: int = ARENAS, *, env: Mapping[str, str] | None = None) -> bool:
    """Cap glibc's malloc arenas at *count* for threads started from now on; ``True`` when the
    cap was set (``False`` off glibc, or when ``MALLOC_ARENA_MAX`` is already set)."""
    env = os.environ if env is None else env
    if _chosen(env, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max"):
        return False
    mallopt = _mallopt()
    return mallopt is not None and bool(mallopt(_M_ARENA_MAX, count))


def fix_mmap_threshold(size: int = MMAP_THRESHOLD, *, env: Mapping[str, str] | None = None) -> bool:
    """Serve every block of *size* bytes or more with its own mapping, and stop glibc from
    raising that threshold as such blocks are freed; ``True`` when it was set (``False`` off
    glibc, or when the person chose a threshold)."""
    env = os.environ if env is None else env
    if _chosen(env, "MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold"):
        return False
    mallopt = _mallopt()
    return mallopt is not None and bool(mallopt(_M_MMAP_THRESHOLD, size))


def tune_malloc(env: Mapping[str, str] | None = None) -> tuple[bool, bool]:
    """Both settings, before the server starts a thread: ``(arenas capped, threshold fixed)``."""
    return limit_arenas(env=env), fix_mmap_threshold(env=env)
