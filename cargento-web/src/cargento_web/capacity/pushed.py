"""Quota a harness pushes in, kept in memory: what ``POST /api/usage`` received.

The older ``notify_hook.py …/api/usage`` status line posts its whole status-line document;
only the windows the harness's plugin reads from its ``quota`` block are kept (never the
account email or the transcript path the document also carries). The status-line forwarder's
pushes on the event lane are kept by the event hub instead.
"""

from __future__ import annotations

import threading
from datetime import datetime

from cargento.models import QuotaWindow

__all__ = ["PushedQuota"]


class PushedQuota:
    """The newest windows each harness pushed through ``POST /api/usage``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[str, tuple[datetime, tuple[QuotaWindow, ...]]] = {}

    def take(self, harness: str, windows: tuple[QuotaWindow, ...], at: datetime) -> bool:
        """Keep *windows*; ``True`` when they differ from the ones kept."""
        with self._lock:
            before = self._latest.get(harness)
            self._latest[harness] = (at, windows)
            return before is None or before[1] != windows

    def latest(self, harness: str) -> tuple[datetime, tuple[QuotaWindow, ...]] | None:
        with self._lock:
            return self._latest.get(harness)
