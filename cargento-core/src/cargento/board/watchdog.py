"""A deadline on each harness's read, so one stuck reader cannot hold the whole board.

A harness's discovery and read pass run on a worker thread of that harness's own. The build
waits for it at most the read budget; a pass that overruns is abandoned for that build (Python
cannot stop a thread, so it is left to finish on its own), and until it returns that harness is
skipped by every later build rather than given a second thread to block. Either way the harness
is named as a fault on its strip entry and in ``--diagnose``, and every other harness's rows are
served as usual, so the page keeps updating and shows stalled only if the whole board does.

The worker threads are daemon threads that live as long as the builder, so the hot path pays a
hand-over to an existing thread, not a thread start. A worker keeps no reference to a pass once
it has handed the outcome back (the pass is bound to the builder, whose plugin caches hold every
reading), and the workers of a watchdog nobody holds any more are told to stop.
"""

from __future__ import annotations

import queue
import threading
import time
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["DEFAULT_READ_BUDGET_S", "Busy", "Done", "Overran", "Watchdog"]

T = TypeVar("T")

#: How long one harness's discovery and read pass may take in one build. A cold pass over a
#: 50,000-file Claude store takes about 2 s on the benchmark machine.
DEFAULT_READ_BUDGET_S = 20.0


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Done(Generic[T]):
    """The pass returned in time (or raised: the exception is re-raised by the caller)."""

    value: T


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Overran:
    """The pass did not return within the budget and was abandoned for this build."""

    budget_s: float


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Busy:
    """An earlier pass of this harness is still running; this build did not start another."""

    running_s: float


#: Put on a worker's queue to end its thread.
_STOP = None


class _Worker:
    """One harness's thread: takes a pass, runs it, hands the outcome back."""

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], _Slot] | None] = queue.SimpleQueue()
        self.started_at: float | None = None  # while a pass runs, when it started
        self._thread = threading.Thread(target=self._run, name=f"cargento-read-{name}", daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], object]) -> _Slot:
        slot = _Slot()
        self.started_at = time.monotonic()
        self._jobs.put((job, slot))
        return slot

    def stop(self) -> None:
        """End the thread once any pass it is running returns."""
        self._jobs.put(_STOP)

    def _run(self) -> None:
        while (item := self._jobs.get()) is not _STOP:
            job, slot = item
            try:
                slot.value = job()
            except BaseException as exc:  # handed to the waiting build, which re-raises it
                slot.error = exc
            finally:
                self.started_at = None
                slot.done.set()
            # Hold nothing of the pass while waiting for the next one: the slot belongs to
            # the build that waited on it, the pass to its builder.
            del item, job, slot


def _stop_all(workers: dict[str, _Worker]) -> None:
    for worker in workers.values():
        worker.stop()


class _Slot:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: object = None
        self.error: BaseException | None = None


class Watchdog:
    """Runs each harness's pass on that harness's worker, with a deadline.

    :param budget_s: the deadline; ``None`` runs every pass inline, with no deadline (for
        callers that want none).
    """

    def __init__(self, budget_s: float | None = DEFAULT_READ_BUDGET_S) -> None:
        self.budget_s = budget_s
        self._workers: dict[str, _Worker] = {}
        weakref.finalize(self, _stop_all, self._workers)

    def run(self, harness: str, job: Callable[[], T]) -> Done[T] | Overran | Busy:
        """Run *job* for *harness*; what became of it. An exception *job* raised is re-raised."""
        if self.budget_s is None:
            return Done(job())
        worker = self._workers.get(harness)
        if worker is None:
            worker = self._workers[harness] = _Worker(harness)
        elif worker.started_at is not None:
            return Busy(running_s=time.monotonic() - worker.started_at)
        slot = worker.submit(job)
        if not slot.done.wait(self.budget_s):
            return Overran(budget_s=self.budget_s)
        if slot.error is not None:
            raise slot.error
        return Done(slot.value)  # type: ignore[arg-type]
