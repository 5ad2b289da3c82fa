"""Fewer malloc arenas for the server (glibc).

glibc gives each thread that allocates its own arena, up to eight per core, and memory freed in
one arena is not reused by another. The server builds boards on a worker thread per harness
and renders on AnyIO's thread pool, so a board's short-lived objects end up spread over a dozen
arenas, each keeping its high-water mark resident. Two arenas measured about 5 MB less peak
RSS at 640 sessions after a minute of appends (docs/benchmark.md, "Whole processes"), with no
difference in the build times. A ``MALLOC_ARENA_MAX`` the person set is left alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

__all__ = ["ARENAS", "limit_arenas"]

#: The arenas the server's allocations share.
ARENAS = 2
_M_ARENA_MAX = -8  # glibc's malloc.h


def limit_arenas(count: int = ARENAS, *, env: Mapping[str, str] | None = None) -> bool:
    """Cap glibc's malloc arenas at *count* for threads started from now on; ``True`` when the
    cap was set (``False`` off glibc, or when ``MALLOC_ARENA_MAX`` is already set)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in env:
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no arena tuning)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, count))
