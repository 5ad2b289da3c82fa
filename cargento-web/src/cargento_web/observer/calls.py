"""What readings and goal summaries share: model calls in the background, at most one per
session, each marked in the session's sidecar while it runs and recorded there however it ends.

:class:`ModelCalls` keeps the flights (:class:`~.service.Flight`) and their threads; a subclass
says what it sends and what it records. A call that ended before anything was sent gives its
budget reservation back (:meth:`ModelCalls.spent`); one that could not be given back still counts.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .budget import BudgetStore
from .jsonstore import StoreUnavailable
from .limits import TIMEOUT_S
from .sidecars import Sidecars

if TYPE_CHECKING:
    from .service import Flight

__all__ = ["ModelCalls"]

log = logging.getLogger("cargento_web")


class ModelCalls:
    """Background model calls of one kind, one per session."""

    def __init__(
        self,
        *,
        budget: BudgetStore,
        sidecars: Sidecars,
        env: Mapping[str, str],
        changed: Callable[[], None],
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        self.budget = budget
        self.sidecars = sidecars
        self.env = env
        self.changed = changed
        self.timeout_s = timeout_s
        self._flights: dict[tuple[str, str], Flight] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def flight(self, harness: str, sid: str) -> Flight | None:
        with self._lock:
            return self._flights.get((harness, sid))

    def flights(self) -> list[Flight]:
        with self._lock:
            return list(self._flights.values())

    def register(self, flight: Flight) -> Flight | None:
        """Take *flight* in; ``None`` when its session already has one in flight."""
        with self._lock:
            key = (flight.harness, flight.sid)
            if key in self._flights:
                return None
            self._flights[key] = flight
        return flight

    def launch(
        self, flight: Flight, marker_key: str, marker: dict[str, Any], run: Callable[[], None], name: str
    ) -> None:
        """Mark the flight on disk under *marker_key* (so a restart finds it) and *run* it in
        the background."""

        def mark(data: dict[str, Any]) -> None:
            data[marker_key] = marker

        self.sidecars.update(flight.harness, flight.sid, mark)
        self.changed()
        thread = threading.Thread(target=run, name=f"{name}-{flight.sid[:8]}", daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

    def cancel(self, harness: str, sid: str) -> bool:
        found = self.flight(harness, sid)
        if found is None:
            return False
        found.cancel.set()
        return True

    def spent(self, flight: Flight) -> bool:
        """Whether *flight* counts against the budget: it sent its prompt, or its reservation
        could not be given back."""
        if flight.sent:
            return True
        try:
            self.budget.release(flight.stamp)
        except StoreUnavailable:
            return True
        return False

    def attempt(self, flight: Flight, outcome: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
        """How *flight* ended, as its sidecar keeps it (whether it was spent included)."""
        return {
            "attempt": flight.attempt,
            "provider": flight.provider,
            **extra,
            "started_at": flight.started_at,
            "ended_at": datetime.now(UTC).isoformat(),
            "spent": self.spent(flight),
            **outcome,
        }

    def settle(self, flight: Flight, change: Callable[[dict[str, Any]], None]) -> None:
        """Record how *flight* ended (*change* to its sidecar) and let it go."""
        try:
            self.sidecars.update(flight.harness, flight.sid, change)
        except StoreUnavailable:
            log.warning("the observer sidecar of %s could not be written", flight.sid)
        with self._lock:
            self._flights.pop((flight.harness, flight.sid), None)
        self.changed()

    def close(self) -> None:
        """Serving ends: stop every call; each is recorded as interrupted."""
        for flight in self.flights():
            flight.stop = True
            flight.cancel.set()
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(10)
