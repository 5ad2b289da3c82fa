"""Timestamps, labels, redaction, locations, turns and rates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import attrs
from cargento.labels import clip, project_label
from cargento.locations import describe, resolve_root
from cargento.rates import KEEP_S, MAX_KEPT, RATE_WINDOW_S, TokenTimeline, per_minute, tokens_in_window
from cargento.redact import redact
from cargento.testing.homes import make_context
from cargento.timestamps import newest_plausible, parse_ts
from cargento.turns import TurnClock, estimate
from hypothesis import given
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_parse_ts_forms() -> None:
    assert parse_ts("2026-11-30T12:00:00Z") == NOW
    assert parse_ts("2026-11-30T12:00:00") == NOW, "no offset means UTC"
    assert parse_ts("2026-11-30T13:00:00+01:00") == NOW
    assert parse_ts("2026-11-30 12:00:00") == NOW
    assert parse_ts(NOW.timestamp()) == NOW
    assert parse_ts(NOW.timestamp() * 1000) == NOW, "epoch milliseconds"
    assert parse_ts(str(int(NOW.timestamp()))) == NOW
    junk_values: tuple[object, ...] = (None, "", "yesterday", True, float("nan"), [], {}, 1e30, -5)
    for junk in junk_values:
        assert parse_ts(junk) is None


@given(st.text(max_size=80) | st.integers() | st.floats() | st.binary(max_size=40))
def test_parse_ts_never_raises(value: object) -> None:
    result = parse_ts(value)
    assert result is None or result.tzinfo is not None


_OFFSETS = st.sampled_from([None, UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=5, minutes=30))])


@given(st.datetimes(timezones=_OFFSETS), st.sampled_from(["offset", "Z", "z", "padded"]))
def test_parse_ts_reads_every_iso_form_as_the_same_moment_in_utc(moment: datetime, form: str) -> None:
    """Every text form of one moment (an offset, ``Z``/``z`` for UTC, no offset meaning UTC,
    surrounding blanks) reads as that moment, always with the UTC zone itself."""
    text = moment.isoformat()
    if form in ("Z", "z") and text.endswith("+00:00"):
        text = text[: -len("+00:00")] + form
    elif form == "padded":
        text = f"  {text}\n"
    got = parse_ts(text)
    expected = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    assert got == expected and got is not None and got.tzinfo is UTC


def test_newest_plausible_rejects_far_future() -> None:
    old = NOW - timedelta(minutes=5)
    assert newest_plausible(NOW, old, NOW + timedelta(hours=3)) == old
    assert newest_plausible(NOW, old, NOW + timedelta(seconds=60)) == NOW + timedelta(seconds=60)
    assert newest_plausible(NOW, None) is None


def test_project_label_rule() -> None:
    assert project_label("/home/u/src/acme/api", "/home/u") == "acme/api"
    assert project_label("/home/u/proj", "/home/u") == "proj"
    assert project_label("/home/u", "/home/u") == "(home)"
    assert project_label("/srv/lab/repos/claude-a", "/root") == "repos/claude-a"
    assert project_label("relative/dir", "/home/u") is None
    assert project_label("/a/../b", "/home/u") is None
    assert project_label(r"C:\Users\U\code\proj", r"c:\users\u") == "code/proj"
    assert project_label("file:///w/x/y", None) == "x/y"


def test_clip_one_line_at_word_boundary() -> None:
    assert clip("a  b\n c") == "a b c"
    out = clip("word " * 40, 30)
    assert len(out) <= 30 and out.endswith("…") and "  " not in out


def test_redaction() -> None:
    for secret in (
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AKIAABCDEFGHIJKLMNOP",
        "xoxb-1234567890-abcdefghij",
        "Bearer abcdefghijklmnopqrstuvwx",
        "password=hunter2hunter2",
        "PGPASSWORD=hunter2",
        "MYSQL_PWD_TOKEN=s3cr3t",
        "GITHUB_TOKEN: abcd1234",
    ):
        text = f"use {secret} now"
        out = redact(text)
        assert "…REDACTED" in out and secret not in out
    assert redact("nothing secret here, just sk-short") == "nothing secret here, just sk-short"


@given(st.text(max_size=200))
def test_redaction_never_raises_and_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_relocation_variable_is_authoritative(tmp_path: Path) -> None:
    ctx = make_context(tmp_path, env={"CODEX_HOME": str(tmp_path / "elsewhere")})
    (tmp_path / ".codex").mkdir()
    root = resolve_root(ctx, variable="CODEX_HOME", default=".codex")
    assert root.path == tmp_path / "elsewhere" and root.origin == "env CODEX_HOME"
    assert describe(root.path).status == "missing", "no fallback to the default that exists"
    ctx2 = make_context(tmp_path)
    assert resolve_root(ctx2, variable="CODEX_HOME", default=".codex").path == tmp_path / ".codex"


def test_platform_defaults(tmp_path: Path) -> None:
    default = {"linux": "$XDG_DATA_HOME/app", "darwin": "Library/Application Support/app", "win32": "$APPDATA/app"}
    assert resolve_root(make_context(tmp_path), variable=None, default=default).path == tmp_path / ".local/share/app"
    assert (
        resolve_root(make_context(tmp_path, platform="darwin"), variable=None, default=default).path
        == tmp_path / "Library/Application Support/app"
    )
    assert (
        resolve_root(make_context(tmp_path, platform="win32"), variable=None, default=default).path
        == tmp_path / "AppData/Roaming/app"
    )
    suffix = resolve_root(
        make_context(tmp_path, env={"GEMINI_CLI_HOME": "/g"}),
        variable="GEMINI_CLI_HOME",
        default=".gemini",
        suffix=".gemini",
    )
    assert suffix.path == Path("/g/.gemini")


def test_turn_clock_reanchors_after_quiet_gap_and_estimates() -> None:
    clock = TurnClock()
    t0 = NOW - timedelta(hours=2)
    for i in range(3):
        start = t0 + timedelta(minutes=20 * i)
        clock.start(start)
        clock.activity(start + timedelta(seconds=30))
        clock.end(start + timedelta(seconds=120 + i * 60))
    assert clock.completed == [120.0, 180.0, 240.0]
    clock.start(NOW - timedelta(seconds=900))
    clock.activity(NOW - timedelta(seconds=860))  # 40 s of work, then a permission wait
    clock.activity(NOW - timedelta(seconds=20))  # 840 s gap > 300 s: re-anchor
    ev = clock.evidence()
    figures = estimate(ev, NOW)
    assert figures is not None
    assert figures.elapsed_s == 60.0, "40 s banked + 20 s since the re-anchor"
    assert figures.eta_s == 120.0, "median of completed turns at least as long (120,180,240) minus elapsed"
    assert not figures.long


def test_estimate_withheld_without_sample_and_long_warning() -> None:
    clock = TurnClock()
    clock.start(NOW - timedelta(seconds=1000))
    figures = estimate(clock.evidence(), NOW)
    assert figures is not None and figures.eta_s is None and figures.long


@given(st.lists(st.floats(min_value=0, max_value=1e7, allow_nan=False), min_size=2, max_size=40))
def test_the_estimate_takes_the_median_statistics_would(completed: list[float]) -> None:
    import statistics

    clock = TurnClock()
    clock.start(NOW - timedelta(seconds=10))
    evidence = attrs.evolve(clock.evidence(), completed_s=tuple(completed))
    figures = estimate(evidence, NOW)
    assert figures is not None
    longer = [d for d in completed if d >= figures.elapsed_s]
    expected = round(max(0.0, statistics.median(longer) - 10.0), 1) if longer else None
    assert figures.eta_s == expected


def test_rates_window() -> None:
    events = [(NOW - timedelta(seconds=30), 100), (NOW - timedelta(seconds=700), 999), (None, 5)]
    assert tokens_in_window(events, NOW) == 100
    assert per_minute(600) == 60.0 and per_minute(None) is None


@given(
    st.lists(
        st.tuples(
            st.none()
            | st.integers(min_value=-800_000_000, max_value=200_000_000).map(
                lambda us: NOW - timedelta(microseconds=us)
            )
            | st.sampled_from([NOW - timedelta(seconds=600), NOW + timedelta(seconds=120)]),
            st.integers(min_value=-5, max_value=10_000),
        ),
        max_size=30,
    )
)
def test_the_rate_window_counts_what_an_age_for_each_event_would(events: list[tuple[datetime | None, int]]) -> None:
    # The definition: an event's age in seconds, from two minutes ahead to the window's length,
    # both ends inside.
    expected = sum(
        max(0, n) for at, n in events if at is not None and -120.0 <= (NOW - at).total_seconds() <= RATE_WINDOW_S
    )
    assert tokens_in_window(events, NOW) == expected


_EVENT_TIMES = (
    st.none()
    | st.integers(min_value=-800_000_000, max_value=200_000_000).map(lambda us: NOW - timedelta(microseconds=us))
    | st.sampled_from([NOW - timedelta(seconds=600), NOW + timedelta(seconds=120)])
)


@given(
    st.lists(st.tuples(_EVENT_TIMES, st.integers(min_value=-5, max_value=10_000)), max_size=40),
    st.integers(min_value=0, max_value=40),
    st.just(0) | st.integers(min_value=-900, max_value=900),  # 0: the window's ends on the events at its edges
)
def test_a_token_timeline_sums_the_window_as_the_list_would(
    events: list[tuple[datetime | None, int]], split: int, shift_s: int
) -> None:
    # Events in any order (a clock stepping back files one in its place), the window asked of
    # a copy taken part way and of the original after more events: each answers what summing
    # its own events would, for a window ending anywhere near them.
    now = NOW + timedelta(seconds=shift_s)
    timeline = TokenTimeline()
    for at, n in events[:split]:
        timeline.add(at, n)
    early = timeline.copy()
    for at, n in events[split:]:
        timeline.add(at, n)
    assert timeline.in_window(now) == tokens_in_window(events, now)
    assert early.in_window(now) == tokens_in_window(events[:split], now)
    assert len(timeline) == sum(1 for at, _ in events if at is not None)


@given(
    st.lists(
        st.tuples(st.integers(min_value=-30, max_value=120), st.integers(min_value=-5, max_value=10_000)),
        min_size=1,
        max_size=400,
    ),
    st.integers(min_value=-300, max_value=4000),
)
def test_a_long_token_timeline_keeps_a_quarter_hour_and_sums_its_window_exactly(
    steps: list[tuple[int, int]], behind_newest_s: int
) -> None:
    # Hours of events, mostly in order with clock steps back: the timeline lets go of those
    # a quarter hour before the newest, and its window answers what summing every event
    # would, for a board clock at most five minutes behind the newest event or anywhere after.
    timeline = TokenTimeline()
    events: list[tuple[datetime | None, int]] = []
    at = NOW
    for step_s, n in steps:
        at += timedelta(seconds=step_s)
        events.append((at, n))
        timeline.add(at, n)
    newest = max(when for when, _ in events if when is not None)
    now = newest + timedelta(seconds=behind_newest_s)
    assert timeline.in_window(now) == tokens_in_window(events, now)
    kept_from = newest - timedelta(seconds=KEEP_S)
    assert len(timeline) <= sum(1 for when, _ in events if when is not None and when >= kept_from) + 64


def test_a_token_timeline_of_ten_hours_holds_the_last_quarter_hour() -> None:
    timeline = TokenTimeline()
    for i in range(3600):
        timeline.add(NOW + timedelta(seconds=10 * i), 5)
    assert len(timeline) <= 90 + 64
    assert timeline.in_window(NOW + timedelta(seconds=10 * 3599)) == 61 * 5


def test_a_token_timeline_answers_a_clock_five_minutes_behind_whenever_it_last_let_go() -> None:
    # An event every ten seconds, stopped at each point of the cycle in which the timeline lets
    # go of its oldest events: a board clock five minutes behind the newest event still sums
    # every event of its window (eleven minutes back from it, to two minutes ahead).
    for last in range(200, 200 + 64):
        timeline = TokenTimeline()
        for i in range(last + 1):
            timeline.add(NOW + timedelta(seconds=10 * i), 1)
        assert timeline.in_window(NOW + timedelta(seconds=10 * last - 300)) == 61 + 12


def test_pid_alive_tells_running_exited_and_zombie_processes_apart() -> None:
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from cargento.processes import pid_alive

    assert pid_alive(os.getpid())
    assert not pid_alive(0) and not pid_alive(-5) and not pid_alive("123") and not pid_alive(True)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    stat = Path(f"/proc/{child.pid}/stat")
    for _ in range(500):  # until it has exited and is a zombie, not yet reaped
        if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.01)
    os.kill(child.pid, 0)  # the kernel still answers for a zombie (no ProcessLookupError)...
    assert not pid_alive(child.pid)  # ...but it holds no port and answers nothing
    child.wait()
    assert not pid_alive(child.pid)


def test_worktext_words_a_session_s_work_on_one_bounded_line() -> None:
    from cargento.worktext import content_text, last_chars, one_line

    assert one_line("make  test\n\tpassed", 40) == "make test passed"
    assert one_line("x" * 50, 10) == "x" * 9 + "…"
    assert last_chars("line one\nline two ends here", 9) == "ends here"
    assert content_text([{"type": "text", "text": "a"}, "b", [{"text": "c"}], {"type": "image"}, 3]) == "a\nb\nc\n\n"
    assert content_text(None) == ""


def test_a_token_timeline_of_a_million_records_at_one_moment_stays_bounded() -> None:
    # A hostile store: every record at the same moment. The timeline keeps MAX_KEPT of them
    # (and at most one let-go batch more), not every one.
    timeline = TokenTimeline()
    for _ in range(MAX_KEPT + 5_000):
        timeline.add(NOW, 1)
    assert MAX_KEPT <= len(timeline) <= MAX_KEPT + 64
