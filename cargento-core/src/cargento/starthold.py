"""Cyclic garbage collection held off while a process starts, until its first board is out.

A start creates about 100,000 objects that live as long as the process (modules, classes,
functions, the attrs and cattrs methods generated for the models) and no cyclic garbage to
speak of; the collector still ran over them, two hundred young collections and a full one
(about 50 ms of a server's first board, nothing freed). Reference counting frees what a start
discards either way: only a cycle waits for the collector, and it is collected once the hold
ends (the first board answered, or :data:`cargento_web`'s fallback timer).

:func:`held_for_start` is entered by ``cargento`` before anything heavy is imported and gives
the collector back when it exits; :func:`release` gives it back early (the server, once its
first ``/api/data`` is answered). Only a hold that turned the collector off turns it back on:
a collector already off stays off, and a nested hold does nothing.

:func:`ending` is for a process about to exit (the console script once ``main`` is done):
the interpreter's last full collection at exit walks every object still alive, 25 ms of a
``cargento --json`` whose answer is already written; frozen, they are skipped.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ending", "held", "held_for_start", "release"]

_lock = threading.Lock()
_holding = False


@contextmanager
def held_for_start() -> Iterator[None]:
    """Automatic cyclic collection off for the block (or until :func:`release`)."""
    global _holding
    with _lock:
        mine = not _holding and gc.isenabled()
        if mine:
            gc.disable()
            _holding = True
    try:
        yield
    finally:
        if mine:
            release()


def release() -> None:
    """End the start's hold now: automatic collection is on again (idempotent)."""
    global _holding
    with _lock:
        if _holding:
            _holding = False
            gc.enable()


def held() -> bool:
    """True while a start's hold has the collector off."""
    return _holding


def ending() -> None:
    """The process exits next: leave what is alive now out of the collection at exit."""
    gc.freeze()
