"""Vendor polling: at most one request per vendor per five minutes, only while a page is open,
only after consent, never under ``--no-usage``.

An open page asks (:meth:`VendorPoller.request`) about once a minute; a vendor whose last
attempt is five minutes old or more is asked again in a worker thread, and the asking page is
answered at once. The attempt is stamped before it starts and whatever it ends in, so a
missing credential or a failing vendor is retried on the same cadence as a healthy one, never
in a storm. The credential is read inside the attempt and dropped when it ends.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import attrs
from cargento.sharedmethods import shared_methods

from cargento_web.capacity.vendors import Failure, Vendor, fetch
from cargento_web.capacity.windows import Window

if TYPE_CHECKING:
    import httpx

    from cargento_web.capacity.credentials import Credential, CredentialProblem

__all__ = ["POLL_S", "Source", "VendorPoller", "VendorState"]

log = logging.getLogger("cargento_web")

#: The floor between two requests to one vendor.
POLL_S = 300.0


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Source:
    """A vendor and how its credential is read on this machine."""

    vendor: Vendor
    credential: Callable[[datetime], Credential | CredentialProblem]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class VendorState:
    """What the last attempt for one vendor found."""

    attempted_at: datetime | None = None
    #: The newest windows read (kept until they go stale), and when.
    windows: tuple[Window, ...] = ()
    #: Why the latest attempt found nothing to show (``None`` after a success).
    failure: Failure | None = None
    in_flight: bool = False


class VendorPoller:
    def __init__(
        self,
        sources: Sequence[Source],
        *,
        clock: Callable[[], datetime],
        client: Callable[[], httpx.Client],
        on_change: Callable[[], None],
    ) -> None:
        self.sources = {s.vendor.harness: s for s in sources}
        self._clock = clock
        self._client = client
        self._on_change = on_change
        self._lock = threading.Lock()
        self._states: dict[str, VendorState] = {key: VendorState() for key in self.sources}
        self._threads: list[threading.Thread] = []
        self._closed = False

    def states(self) -> dict[str, VendorState]:
        with self._lock:
            return dict(self._states)

    def request(self) -> list[str]:
        """Start an attempt for every vendor that is due; the keys started."""
        now = self._clock()
        started: list[str] = []
        with self._lock:
            if self._closed:
                return started
            for key, state in self._states.items():
                if state.in_flight:
                    continue
                if state.attempted_at is not None and (now - state.attempted_at).total_seconds() < POLL_S:
                    continue
                self._states[key] = attrs.evolve(state, attempted_at=now, in_flight=True)
                started.append(key)
            self._threads = [t for t in self._threads if t.is_alive()]
            for key in started:
                thread = threading.Thread(target=self._attempt, args=(key, now), name=f"capacity-{key}", daemon=True)
                self._threads.append(thread)
                thread.start()
        return started

    def _attempt(self, key: str, now: datetime) -> None:
        # The login reader is imported by the first poll (most runs never poll), not at start.
        from cargento_web.capacity.credentials import CredentialProblem

        source = self.sources[key]
        result: list[Window] | Failure
        try:
            found = source.credential(now)
            if isinstance(found, CredentialProblem):
                result = Failure(kind=found.kind, text=found.text)
            else:
                with self._client() as client:
                    result = fetch(source.vendor, found, client, now)
                del found
        except Exception as exc:  # a vendor's surprise must not reach the log with its content
            log.warning("the %s quota attempt failed (%s)", key, type(exc).__name__)
            result = Failure(
                kind="unavailable", text=f"the {source.vendor.label} quota attempt failed ({type(exc).__name__})"
            )
        with self._lock:
            state = self._states[key]
            if isinstance(result, Failure):
                self._states[key] = attrs.evolve(state, failure=result, in_flight=False)
            else:
                self._states[key] = attrs.evolve(state, windows=tuple(result), failure=None, in_flight=False)
        self._on_change()

    def wait(self, timeout_s: float = 5.0) -> None:
        """Wait for the attempts under way (tests, and closing)."""
        with self._lock:
            threads = list(self._threads)
        for t in threads:
            t.join(timeout_s)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self.wait(1.0)
