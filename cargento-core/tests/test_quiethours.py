"""Quiet hours: the window's shape, a window across midnight, where it is read from, and a
malformed one refused with one line before anything starts."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from cargento.cli import main, parse_args
from cargento.quiethours import QuietHoursError, parse_window, resolve_window

ZONE = timezone(timedelta(hours=-5))


def local(hour: int, minute: int = 0) -> datetime:
    """A UTC moment that reads *hour*:*minute* in ZONE."""
    return datetime(2026, 12, 1, hour, minute, tzinfo=ZONE).astimezone(UTC)


def test_a_window_across_midnight_holds_the_night_and_not_the_day() -> None:
    window = parse_window("22:30-07:00")
    assert window.crosses_midnight and window.start == time(22, 30) and window.end == time(7)
    inside = [(22, 30), (23, 59), (0, 0), (3, 15), (6, 59)]
    outside = [(7, 0), (12, 0), (22, 29)]
    assert all(window.contains(local(h, m), ZONE) for h, m in inside)
    assert not any(window.contains(local(h, m), ZONE) for h, m in outside)


def test_a_daytime_window_is_start_inclusive_end_exclusive() -> None:
    window = parse_window(" 09:00 - 17:30 ")
    assert not window.crosses_midnight
    assert window.contains(local(9), ZONE) and window.contains(local(17, 29), ZONE)
    assert not window.contains(local(17, 30), ZONE) and not window.contains(local(8, 59), ZONE)
    assert window.text() == "09:00-17:30"


def test_the_zone_decides_what_local_means() -> None:
    window = parse_window("22:00-06:00")
    moment = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)  # 08:00 UTC is 03:00 at UTC-5
    assert window.contains(moment, ZONE) and not window.contains(moment, UTC)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("22-07", "HH:MM-HH:MM"),
        ("22:30", "HH:MM-HH:MM"),
        ("24:00-07:00", "not a time of day"),
        ("22:60-07:00", "not a time of day"),
        ("09:00-09:00", "holds nothing"),
        ("", "HH:MM-HH:MM"),
    ],
)
def test_a_malformed_window_is_refused_with_one_line(text: str, words: str) -> None:
    with pytest.raises(QuietHoursError) as caught:
        parse_window(text)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_flag_over_variable_over_file(tmp_path: Path) -> None:
    (tmp_path / "quiet_hours").write_text("01:00-02:00\n")
    env = {"CARGENTO_HOME": str(tmp_path), "CARGENTO_QUIET_HOURS": "03:00-04:00"}
    assert resolve_window("05:00-06:00", env).text() == "05:00-06:00"  # type: ignore[union-attr]
    assert resolve_window(None, env).text() == "03:00-04:00"  # type: ignore[union-attr]
    found = resolve_window(None, {"CARGENTO_HOME": str(tmp_path)})
    assert found is not None and found.text() == "01:00-02:00" and found.source.endswith("quiet_hours")
    assert resolve_window(None, {"CARGENTO_HOME": str(tmp_path / "none")}) is None
    assert resolve_window("05:00-06:00", env, off=True) is None, "--no-quiet-hours resolves none"


def test_a_malformed_file_names_itself(tmp_path: Path) -> None:
    (tmp_path / "quiet_hours").write_text("late\n")
    with pytest.raises(QuietHoursError, match="quiet_hours takes a local window"):
        resolve_window(None, {"CARGENTO_HOME": str(tmp_path)})


def test_the_cli_refuses_a_malformed_flag_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quiet-hours", "25:00-07:00"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--quiet-hours" in err and "not a time of day" in err
    assert parse_args(["--quiet-hours", " 22:00-07:00 "]).quiet_hours == "22:00-07:00"


def test_the_cli_refuses_a_malformed_variable_before_serving(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("CARGENTO_HOME", str(tmp_path))
    monkeypatch.setenv("CARGENTO_QUIET_HOURS", "soon")
    assert main(["--port", "4999"]) == 2
    err = capsys.readouterr().err
    assert err == "cargento: CARGENTO_QUIET_HOURS takes a local window HH:MM-HH:MM (like 22:30-07:00), not 'soon'\n"
    # --no-quiet-hours reads none of it, so it does not refuse.
    from cargento import cli

    monkeypatch.setattr(cli, "_serve", lambda options: 0)
    assert main(["--port", "4999", "--no-quiet-hours"]) == 0


def test_the_next_end_of_a_window_across_midnight_is_in_local_time() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    window = parse_window("23:30-06:15")
    zone = timezone(timedelta(hours=-5))
    # 23:50 local on the 1st (04:50 UTC on the 2nd): the window ends at 06:15 local on the 2nd.
    inside = datetime(2026, 12, 2, 4, 50, tzinfo=UTC)
    assert window.next_end(inside, zone) == datetime(2026, 12, 2, 6, 15, tzinfo=zone)
    # Past midnight, still inside: the same end.
    assert window.next_end(datetime(2026, 12, 2, 6, 0, tzinfo=zone), zone) == datetime(2026, 12, 2, 6, 15, tzinfo=zone)
    # At the end itself, or after it: the next day's end.
    assert window.next_end(datetime(2026, 12, 2, 6, 15, tzinfo=zone), zone) == datetime(2026, 12, 3, 6, 15, tzinfo=zone)
    assert window.next_end(datetime(2026, 12, 2, 12, 0), None) == datetime(2026, 12, 3, 6, 15), "naive is local"
