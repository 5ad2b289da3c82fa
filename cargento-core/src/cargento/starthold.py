"""Cyclic garbage collection held off while a process starts, until its first board is out.

A start creates about 100,000 objects that live as long as the process (modules, classes,
functions, the attrs and cattrs methods generated for the models) and no cyclic garbage to
speak of; the collector still ran over them, two hundred young collections and a full one
(about 50 ms of a server's first board, nothing freed). Reference counting frees what a start
discards either way: only a cycle waits for the collector, and it is collected once the hold
ends (the first board answered, or :data:`cargento_web`'s fallback timer).

:func:`held_for_start` is entered by ``cargento`` before anything heavy is imported and gives
the collector back when it exits; :func:`release` gives it back early (the server, once its
first ``/api/data`` is answered, freezing what its start made first). Only a hold that turned the collector off turns it back on:
a collector already off stays off, and a nested hold does nothing.

:func:`ending` is for a process about to exit (the console script once ``main`` is done, called
while the hold is still on): the interpreter's last full collection at exit walks every object
still alive, 25 ms of a ``cargento --json`` whose answer is already written, and a collector
given back before would first walk them all once more (12 to 22 ms); frozen, they are skipped.

:func:`exit_at_once` ends a one-shot run (``--json``, ``--diagnose``) whose answer is written
without the interpreter's teardown of every module and object (about 8 ms): it does what of
that teardown has an effect outside the process first (the standard streams flushed, the exit
handlers run: the SQLite snapshots removed, weakref finalizers called), and only when no
thread is left that the interpreter would wait for.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["ending", "exit_at_once", "held", "held_for_start", "release"]

#: The exit status Python gives a process whose standard output cannot be flushed at exit.
FLUSH_FAILED = 120

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


def release(*, freeze: bool = False) -> None:
    """End the start's hold now: automatic collection is on again (idempotent).

    :param freeze: for a process whose start made what it keeps until it exits (the server):
        collect once now (the start's cyclic garbage, 1.4 MB of it attrs' first drafts of the
        slotted classes), then leave every object still alive out of all later collections.
        Every full collection would otherwise walk them again (about 20 ms a time), freeing
        nothing.
    """
    global _holding
    with _lock:
        if _holding:
            _holding = False
            if freeze:
                gc.collect()
                gc.freeze()
            gc.enable()


def held() -> bool:
    """True while a start's hold has the collector off."""
    return _holding


def ending() -> None:
    """The process exits next: leave what is alive now out of the collection at exit."""
    gc.freeze()


def exit_at_once(code: int) -> None:
    """End the process now with *code*, as the interpreter's own exit would end it, minus the
    teardown of its modules and objects: standard output and error flushed (a failed flush of
    standard output exits 120, as Python does), the exit handlers run. Returns (and the caller
    exits as usual) while a thread the interpreter would wait for still runs (a daemon thread
    is ended either way)."""
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout:
                code = FLUSH_FAILED
    atexit._run_exitfuncs()
    os._exit(code)
