"""The live board's worker-thread calls (:mod:`cargento_web.workerthreads`)."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest
from cargento_web.workerthreads import run_in_worker

WHO = contextvars.ContextVar("WHO", default="nobody")


def test_the_call_runs_on_a_worker_in_the_callers_context() -> None:
    async def main() -> tuple[str, bool]:
        WHO.set("the live board")
        return await run_in_worker(
            lambda suffix: (WHO.get() + suffix, threading.current_thread() is threading.main_thread()), "!"
        )

    assert asyncio.run(main()) == ("the live board!", False)


def test_an_exception_of_the_call_reaches_the_caller() -> None:
    def fails(message: str) -> None:
        raise ValueError(message)

    async def main() -> None:
        await run_in_worker(fails, "the store vanished")

    with pytest.raises(ValueError, match="the store vanished"):
        asyncio.run(main())


def test_a_cancellation_is_taken_only_once_the_call_has_returned() -> None:
    started, release = threading.Event(), threading.Event()
    finished: list[str] = []

    def build() -> str:
        started.set()
        release.wait(10)
        finished.append("built")
        return "board"

    async def main() -> list[str]:
        task = asyncio.create_task(run_in_worker(build))
        await asyncio.to_thread(started.wait, 10)
        task.cancel()
        await asyncio.sleep(0.05)
        # Cancelled twice while the call runs: the caller still waits for it.
        task.cancel()
        await asyncio.sleep(0.05)
        seen = ["running" if not task.done() else "done", *finished]
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        return [*seen, *finished]

    assert asyncio.run(main()) == ["running", "built"]
