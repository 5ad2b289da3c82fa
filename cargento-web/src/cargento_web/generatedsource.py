"""Forget the source text attrs keeps of the methods it generates.

attrs writes each class's ``__init__``, ``__eq__``, ``__repr__`` and the rest as Python source,
compiles it, and files the source in :mod:`linecache` under a made-up name (``<attrs generated
methods ...>``) so that a debugger or a traceback can show a line of it. Nothing reads those
lines while the server runs unless an exception's traceback passes through a generated method
and is formatted; yet they are kept for as long as the process lives: about 210 classes at the
server's start, 0.96 MB before every class took the shared repr (``cargento.sharedrepr``) and
about 0.6 MB since (tracemalloc: ``script.splitlines(True)`` in ``attr/_make.py``), strings no
reading ever shows. The compiled methods keep working without them; a traceback
through one shows its frame without the source line.
"""

from __future__ import annotations

import linecache
import sys

__all__ = ["GENERATED_PREFIX", "forget_generated_sources"]

#: How attrs names the source it files (``<attrs generated methods module.Class>``).
GENERATED_PREFIX = "<attrs generated"


def forget_generated_sources() -> int:
    """Drop the generated sources attrs filed so far; returns the bytes their lines held (by
    ``sys.getsizeof``). Classes defined later file theirs again, as before."""
    cache = linecache.cache
    freed = 0
    for name in [n for n in cache if n.startswith(GENERATED_PREFIX)]:
        entry = cache.pop(name, None)
        if entry is not None and len(entry) == 4:
            lines = entry[2]
            freed += sys.getsizeof(lines) + sum(sys.getsizeof(line) for line in lines)
    return freed
