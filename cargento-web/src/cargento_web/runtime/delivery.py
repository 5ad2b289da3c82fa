"""The one background thread a raise lane hands its deliveries to: the desktop notifier
(:mod:`cargento_web.runtime.alerts`) and the reach webhook (:mod:`cargento_web.reach.lane`).

A lane decides that something is raised, builds its :class:`Delivery` record, and submits a
job; the worker runs the lane's ``deliver(job)`` off the caller's thread (a notification
service or a webhook may take seconds), and records the finished delivery. A full queue
records the delivery as not started rather than blocking the caller. :meth:`drain` waits until
every submitted job has its outcome recorded.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

from cargento_web.runtime.stores import Delivery

__all__ = ["DeliveryWorker"]

Job = TypeVar("Job")


class DeliveryWorker(Generic[Job]):
    def __init__(
        self,
        *,
        name: str,
        deliver: Callable[[Job], Delivery],
        record: Callable[[Delivery], None],
        maxsize: int,
        close_timeout_s: float = 10.0,
    ) -> None:
        self.name = name
        self._deliver = deliver
        self._record = record
        self._close_timeout_s = close_timeout_s
        self._queue: queue.Queue[Job | None] = queue.Queue(maxsize=maxsize)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._inflight = 0
        self._worker: threading.Thread | None = None

    def submit(self, job: Job, *, if_full: Delivery) -> None:
        """Queue *job*; when the queue is full, *if_full* is recorded at once instead."""
        with self._lock:
            self._inflight += 1
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._worker.start()
        try:
            self._queue.put_nowait(job)
        except queue.Full:
            self._finish(if_full)

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            finished: Delivery | None
            try:
                finished = self._deliver(job)
            except Exception as exc:  # the thread must survive any lane's failure
                finished = _failed(job, exc)
            self._finish(finished)

    def _finish(self, delivery: Delivery | None) -> None:
        try:
            if delivery is not None:
                self._record(delivery)
        finally:
            with self._lock:
                self._inflight -= 1
                self._idle.notify_all()

    def drain(self, timeout_s: float) -> bool:
        """Wait until every submitted job has an outcome recorded (tests, shutdown)."""
        with self._lock:
            return self._idle.wait_for(lambda: self._inflight == 0, timeout=timeout_s)

    def close(self) -> None:
        """Stop the thread after the jobs already queued."""
        with self._lock:
            worker = self._worker
        if worker is not None and worker.is_alive():
            self._queue.put(None)
            worker.join(timeout=self._close_timeout_s)


def _failed(job: object, exc: Exception) -> Delivery | None:
    """A job whose delivery raised: its own record (the first element of the job) marked as not
    started, or nothing when the job carries none."""
    first = job[0] if isinstance(job, tuple) and job else job
    if not isinstance(first, Delivery):
        return None
    return attrs.evolve(first, outcome="could-not-start", detail=f"{type(exc).__name__}: {exc}")
