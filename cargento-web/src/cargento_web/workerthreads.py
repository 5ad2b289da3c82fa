"""A blocking call run on a worker thread from the event loop: the live board's builds and every
other blocking call the server's routes and shutdown make, so the server has one pool of them.

``anyio.to_thread.run_sync`` would do, but its first call loads anyio's asyncio backend (about
18 ms, on the way to a server's first board; docs/benchmark.md, issue 24), and nothing else a
first answer does needs it. :func:`run_in_worker` keeps what the live board relies on of it:
the call runs in a copy of the caller's context, and a cancellation waits for the call to end
before it is taken (a build holds the board's lock and owns the caches it fills; it is never
abandoned half-done), so a cancelled caller never leaves a call running behind it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["WORKERS", "run_in_worker"]

T = TypeVar("T")

#: Worker threads at most, as many as anyio's default limiter lets run at once.
WORKERS = 40

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="cargento-worker")
        return _pool


async def run_in_worker(func: Callable[..., T], *args: object) -> T:
    """``func(*args)`` on a worker thread; a cancellation meanwhile is raised once it returns."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    future = loop.run_in_executor(_executor(), functools.partial(context.run, func, *args))
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True  # taken once the call has returned
    if cancelled:
        raise asyncio.CancelledError
    return future.result()
