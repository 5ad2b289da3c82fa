"""What a quota window is once read from any source, and what is said when one is withheld."""

from __future__ import annotations

from datetime import datetime

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["FIVE_HOURS_S", "MONTH", "WEEK_S", "Window", "Withheld"]

FIVE_HOURS_S = 5 * 3600.0
WEEK_S = 7 * 24 * 3600.0
#: Cursor's billing cycle: published with an end and no start, so it has no clock.
MONTH = "monthly"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Window:
    """One allowance window as a source published it.

    ``window_s`` and ``resets_at`` together are the window's clock: with both, the share of
    its time gone is known and a pace can be measured; without either, only the level is.
    """

    #: Stable identity across readings (``codex:5h``, ``claude:weekly:Opus``).
    key: str
    harness: str
    harness_label: str
    #: The window's own name as the strip says it (``5h``, ``weekly``, ``weekly · Opus``).
    name: str
    #: Share of the allowance spent, 0 to 100 (a source may report past 100).
    used_percent: float
    #: The window's length in seconds, when the source implies one.
    window_s: float | None
    resets_at: datetime | None
    #: When this reading was made (the record's time, the push's or the fetch's).
    read_at: datetime
    #: ``store`` (the harness wrote it), ``pushed`` (its status line sent it), ``vendor``
    #: (fetched with consent) or ``demo`` (a stand-in the demo publishes).
    source: str
    #: One more fact the row shows (``$0.18 of $20.00``, which family was the worse).
    detail: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Withheld:
    """A window, or a whole source, that has no reading to show, and why: never a zero."""

    key: str
    harness_label: str
    reason: str
    source: str
    name: str | None = None
