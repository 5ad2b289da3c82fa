"""What a listing entry makes when asked is what it once kept, made at once.

An entry keeps no path, time or stamp of its own (:mod:`test_listing_memory`); its ``path``,
``mtime`` and ``stamp`` are made from its folder, session id and ``stat`` figures. They must be
the values the entry kept before: the path the folder was listed by,
``datetime.fromtimestamp(st.st_mtime, UTC)`` (the float ``os.stat`` gives, not one worked out
some other way from the nanoseconds, which can round to another microsecond) and
``size:mtime_ns``; and so must the files discovery makes from it, inside the window or outside
it. Discovery decides that a transcript is outside the window from its integer time where it is
far from the edge: that must answer what ``in_window`` answers of its datetime.
"""

from __future__ import annotations

import math
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from cargento.cache import HarnessCache
from cargento.testing import make_context
from cargento_harness_claude import discovery, listing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SID = "5f1c2e6a-0000-4000-8000-000000000009"
NAME = f"{SID}.jsonl"
DAY = 86400.0
#: From 1970 to 2038: times any file system a test may run on can hold.
MTIMES_NS = st.integers(0, 2**31 * 10**9 - 1)
FOLDERS = st.sampled_from(["-w-a", "-home-dev-some-project", "-w-with space", "-w-ünïcode"])
#: How long before the moment of the pass the transcript was written: inside a day's window
#: (one in the future), on either side of its edge, and long outside it.
AGES_S = st.sampled_from([-60.0, 10.0, DAY - 1.0, DAY + 1.0, 40 * DAY])


def _eager(projects: Path, folder: str, path: Path) -> tuple[str, datetime, str]:
    """The path, time and stamp an entry kept, made as the listing made them at once."""
    st_ = os.stat(path)
    listed_by = os.path.join(str(projects), folder) + os.sep + NAME
    return listed_by, datetime.fromtimestamp(st_.st_mtime, UTC), f"{st_.st_size}:{st_.st_mtime_ns}"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mtime_ns=MTIMES_NS,
    later_ns=MTIMES_NS,
    blank_lines=st.integers(0, 400),
    folder=FOLDERS,
    age_s=AGES_S,
)
def test_the_path_time_and_stamp_made_when_asked_are_the_ones_kept_before(
    tmp_path_factory: pytest.TempPathFactory, mtime_ns: int, later_ns: int, blank_lines: int, folder: str, age_s: float
) -> None:
    home = tmp_path_factory.mktemp("derived")
    projects = home / ".claude" / "projects"
    (projects / folder).mkdir(parents=True)
    path = projects / folder / NAME
    path.write_bytes(b'{"type":"user","message":{"role":"user","content":"old"}}\n' + b"\n" * blank_lines)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    want = _eager(projects, folder, path)

    found = listing.Listing(str(projects))
    found.scan()
    entry = found.winner(SID)
    assert entry is not None
    assert (entry.path, entry.mtime, entry.stamp) == want

    # Made again from one name a watcher reported (another way an entry is made).
    os.utime(path, ns=(later_ns, later_ns))
    found.update(folder, NAME)
    again = found.winner(SID)
    assert again is not None
    assert (again.path, again.mtime, again.stamp) == _eager(projects, folder, path)

    # The files discovery makes: held as the entry outside the window, made inside it.
    os.utime(path, ns=(mtime_ns, mtime_ns))
    now = want[1] + timedelta(seconds=age_s)
    _, index = discovery.discover(make_context(home, now=now, cache=HarnessCache()))
    files = index.sessions[SID]
    assert (files.transcript, files.mtime, files.stamp, files.project_dir) == (*want, folder)
    assert (files.head is None) == (age_s > DAY), "the head is read inside the window only"


@settings(max_examples=400, deadline=None)
@given(
    now=st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)),
    window_s=st.one_of(
        st.sampled_from([0.0, 15.0, 3600.0, DAY, 1e300, math.inf, math.nan]), st.floats(min_value=0.0, max_value=1e9)
    ),
    from_edge_ns=st.one_of(st.integers(-3 * 10**9, 3 * 10**9), st.integers(-(10**17), 10**17)),
)
def test_a_transcript_is_outside_the_window_exactly_when_in_window_says_so(
    now: datetime, window_s: float, from_edge_ns: int
) -> None:
    ctx = make_context(Path("/nonexistent"), now=now, window_s=window_s)
    edge_ns = (now.timestamp() - window_s) * 1e9
    mtime_ns = max(0, (round(edge_ns) if math.isfinite(edge_ns) else 0) + from_edge_ns)
    figures = cast(os.stat_result, SimpleNamespace(st_ino=1, st_size=1, st_mtime_ns=mtime_ns))
    entry = listing.Entry("/p/-w-a", "-w-a", SID, figures, 1)
    work = discovery._Pass(outside_before_ns=discovery._outside_before_ns(ctx))
    assert discovery._inside(ctx, entry, work) == ctx.in_window(entry.mtime)
