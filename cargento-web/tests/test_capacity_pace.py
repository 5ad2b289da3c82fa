"""Pace, run-out order and the 70 percent rule over every window shape hypothesis can make."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cargento_web.capacity.freshness import stale_reason
from cargento_web.capacity.pace import (
    MIN_ELAPSED_S,
    PRESSURE_PERCENT,
    assess,
    elapsed_fraction,
    order,
    pace,
    pressing,
    run_out,
    tone,
)
from cargento_web.capacity.windows import FIVE_HOURS_S, WEEK_S, Window
from hypothesis import given
from hypothesis import strategies as st

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def window(used: float, length: float | None, reset_in_s: float | None, *, key: str = "codex:5h") -> Window:
    return Window(
        key=key,
        harness="codex",
        harness_label="Codex",
        name="5h",
        used_percent=used,
        window_s=length,
        resets_at=None if reset_in_s is None else NOW + timedelta(seconds=reset_in_s),
        read_at=NOW,
        source="store",
    )


lengths = st.one_of(st.none(), st.sampled_from([FIVE_HOURS_S, WEEK_S]), st.floats(min_value=600, max_value=40 * 86400))
windows = st.builds(
    window,
    used=st.floats(min_value=0, max_value=150, allow_nan=False),
    length=lengths,
    reset_in_s=st.one_of(st.none(), st.floats(min_value=1, max_value=40 * 86400)),
    key=st.text(alphabet="abcdefgh:", min_size=1, max_size=8),
)


def test_the_spec_example_compares_spending_with_time_gone() -> None:
    early = assess(window(100 / 3, FIVE_HOURS_S, FIVE_HOURS_S * 7 / 8, key="early"), NOW)
    late = assess(window(90, FIVE_HOURS_S, FIVE_HOURS_S / 10, key="late"), NOW)
    assert early.pace is not None and abs(early.pace - 8 / 3) < 1e-9 and early.tone == "clay"
    assert late.pace is not None and abs(late.pace - 1.0) < 1e-9 and late.tone == "amber"
    # A third spent an eighth in runs out with most of its window still to go; nine-tenths at
    # nine-tenths runs out as the window resets.
    assert early.run_out_at is not None and early.window.resets_at is not None
    assert (early.window.resets_at - early.run_out_at) > timedelta(hours=3)
    assert late.run_out_at is not None and abs((late.run_out_at - late.window.resets_at).total_seconds()) < 1e-3  # type: ignore[operator]


def test_rows_are_ordered_by_run_out_not_by_percentage() -> None:
    weekly = window(50, WEEK_S, WEEK_S - 86400, key="weekly")  # half spent a day in: out in a day
    five = window(20, FIVE_HOURS_S, FIVE_HOURS_S - 3600, key="five")  # a fifth spent an hour in: out in 4 h
    level = window(95, None, 3600, key="level")  # no clock: never projected, however full
    ranked = order([assess(weekly, NOW), assess(level, NOW), assess(five, NOW)])
    assert [a.window.key for a in ranked] == ["five", "weekly", "level"]
    assert ranked[0].minutes_left is not None and abs(ranked[0].minutes_left - 240) < 1e-6


def test_tone_thresholds() -> None:
    assert tone(None) == "ink"
    assert tone(0.0) == tone(0.999) == "accent"
    assert tone(1.0) == tone(1.49) == "amber"
    assert tone(1.5) == tone(9.0) == "clay"


@given(windows)
def test_pace_is_spent_share_over_time_share_and_needs_a_clock(w: Window) -> None:
    measured = pace(w, NOW)
    gone = elapsed_fraction(w, NOW)
    if w.window_s is None or w.resets_at is None:
        assert measured is None and gone is None and assess(w, NOW).tone == "ink"
        return
    assert gone is not None and 0.0 <= gone <= 1.0
    if gone * w.window_s < MIN_ELAPSED_S:
        assert measured is None
    else:
        assert measured is not None and abs(measured - (w.used_percent / 100) / gone) < 1e-6 * max(1.0, measured)
        assert assess(w, NOW).tone == tone(measured)


@given(windows)
def test_run_out_extends_the_measured_pace(w: Window) -> None:
    end = run_out(w, NOW)
    if end is None:
        return
    assert end >= NOW
    if w.used_percent >= 100:
        assert end == NOW
        return
    # At the measured rate, spending from the window's start to the run-out reaches 100 %.
    assert w.resets_at is not None and w.window_s is not None
    start = w.resets_at - timedelta(seconds=w.window_s)
    gone = (NOW - start).total_seconds()
    total = (end - start).total_seconds()
    assert abs(w.used_percent * total / gone - 100.0) < 1e-3


@given(st.lists(windows, max_size=8))
def test_order_is_by_projected_run_out_then_the_unprojected(ws: list[Window]) -> None:
    ranked = order(assess(w, NOW) for w in ws)
    assert len(ranked) == len(ws)
    projected = [a.run_out_at for a in ranked if a.run_out_at is not None]
    assert projected == sorted(projected)
    seen_unprojected = False
    for a in ranked:
        if a.run_out_at is None:
            seen_unprojected = True
        else:
            assert not seen_unprojected, "every projected window comes before every unprojected one"


@given(windows)
def test_pressure_is_seventy_percent_or_an_end_before_the_reset(w: Window) -> None:
    a = assess(w, NOW)
    before_reset = a.run_out_at is not None and w.resets_at is not None and a.run_out_at < w.resets_at
    assert a.pressure == (w.used_percent >= PRESSURE_PERCENT or before_reset)
    assert pressing(w, a.run_out_at) == a.pressure


@given(st.floats(min_value=0, max_value=69.99))
def test_below_seventy_with_no_clock_is_no_pressure(used: float) -> None:
    assert not assess(window(used, None, 3600), NOW).pressure
    assert assess(window(max(used, PRESSURE_PERCENT), None, None), NOW).pressure


def test_a_window_that_reset_since_its_reading_is_stale_not_zero() -> None:
    w = window(40, FIVE_HOURS_S, -60)
    assert stale_reason(w, NOW) is not None
    assert stale_reason(window(40, FIVE_HOURS_S, 600), NOW) is None
    vendor = Window(
        key="claude:5h", harness="claude", harness_label="Claude Code", name="5h", used_percent=10,
        window_s=FIVE_HOURS_S, resets_at=NOW + timedelta(hours=2), read_at=NOW - timedelta(minutes=20), source="vendor",
    )  # fmt: skip
    assert "no poll has landed" in (stale_reason(vendor, NOW) or "")
