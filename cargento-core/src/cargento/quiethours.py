"""Quiet hours: a local-time window (``HH:MM-HH:MM``) during which non-urgent raises are held.

The window may cross midnight (``22:30-07:00`` holds from half past ten at night to seven in
the morning); its start is inside it and its end is not, so ``09:00-09:00`` is refused as an
empty window rather than read as all day. Where it comes from, first found wins:
``--quiet-hours``, then ``CARGENTO_QUIET_HOURS``, then the first line of
``~/.cargento/quiet_hours`` (``CARGENTO_HOME`` relocates it); ``--no-quiet-hours`` resolves
none. A malformed window is refused with one line naming where it came from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, time, timedelta, tzinfo
from pathlib import Path

import attrs

from cargento.sharedmethods import shared_methods
from cargento.statedir import state_dir

__all__ = [
    "QUIET_HOURS_FILE",
    "QUIET_HOURS_VARIABLE",
    "QuietHoursError",
    "QuietWindow",
    "parse_window",
    "resolve_window",
]

QUIET_HOURS_VARIABLE = "CARGENTO_QUIET_HOURS"
QUIET_HOURS_FILE = "quiet_hours"
_SHAPE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$")


class QuietHoursError(ValueError):
    """A window that is not ``HH:MM-HH:MM`` with real times and a non-empty span."""


@shared_methods
@attrs.frozen(repr=False, eq=False)
class QuietWindow:
    """A daily local-time window, start inclusive, end exclusive, possibly across midnight."""

    start: time
    end: time
    #: Where the window was read from (the flag, the variable or the file), for the page.
    source: str = "--quiet-hours"

    @property
    def crosses_midnight(self) -> bool:
        return self.end < self.start

    def contains(self, moment: datetime, zone: tzinfo | None = None) -> bool:
        """True when *moment*, read in local time, falls inside the window. An aware moment
        is converted to *zone* (this machine's zone when ``None``); a naive one is taken as
        local already."""
        local = moment.astimezone(zone) if moment.tzinfo is not None else moment
        at = local.time().replace(tzinfo=None)
        if self.crosses_midnight:
            return at >= self.start or at < self.end
        return self.start <= at < self.end

    def next_end(self, moment: datetime, zone: tzinfo | None = None) -> datetime:
        """The first moment after *moment* at which the window ends (its end time, local),
        whether or not *moment* is inside it; aware in *zone* when *moment* is aware."""
        local = moment.astimezone(zone) if moment.tzinfo is not None else moment
        end = local.replace(hour=self.end.hour, minute=self.end.minute, second=0, microsecond=0)
        if end <= local:
            end += timedelta(days=1)
        return end

    def text(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"


def parse_window(text: str, source: str = "--quiet-hours") -> QuietWindow:
    """Read ``HH:MM-HH:MM``; raise :class:`QuietHoursError` with one line saying why not."""
    match = _SHAPE.match(text)
    if match is None:
        raise QuietHoursError(f"{source} takes a local window HH:MM-HH:MM (like 22:30-07:00), not {text.strip()!r}")
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if not (h1 < 24 and h2 < 24 and m1 < 60 and m2 < 60):
        raise QuietHoursError(f"{source}: {text.strip()!r} is not a time of day (hours 00-23, minutes 00-59)")
    start, end = time(h1, m1), time(h2, m2)
    if start == end:
        raise QuietHoursError(f"{source}: {text.strip()!r} starts where it ends, so it holds nothing")
    return QuietWindow(start, end, source)


def resolve_window(flag: str | None, env: Mapping[str, str], *, off: bool = False) -> QuietWindow | None:
    """The run's window: *flag*, else the variable, else the file; ``None`` when *off* or none
    is set. Raises :class:`QuietHoursError` for a malformed one wherever it came from."""
    if off:
        return None
    if flag is not None:
        return parse_window(flag, "--quiet-hours")
    value = env.get(QUIET_HOURS_VARIABLE, "").strip()
    if value:
        return parse_window(value, QUIET_HOURS_VARIABLE)
    path = state_dir(env) / QUIET_HOURS_FILE
    line = _first_line(path)
    if line:
        return parse_window(line, str(path))
    return None


def _first_line(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(256).splitlines()[0].strip() if path.stat().st_size else None
    except (OSError, IndexError):
        return None
