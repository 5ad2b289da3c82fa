"""The long-session refresh measurement (``cargento.testing.longsession``) over a real Pi store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.testing.longsession import print_figures, refresh_figures
from cargento_harness_pi.fixtures import PiStore


def test_refresh_figures_time_a_cold_build_and_each_append(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    start = datetime.now(UTC) - timedelta(minutes=5)
    session = PiStore(home).session(cwd=str(home / "work"), at=start)
    session.prompt("Fix the parser", start)
    session.reply("Done.", start + timedelta(seconds=1))
    appended: list[int] = []

    def append() -> None:
        appended.append(session.count)
        session.reply("More.", datetime.now(UTC))

    figures = refresh_figures("pi", home, tmp_path / "state", session.path, append, appends=3)
    assert len(appended) == 3 and len(set(appended)) == 3, "one record appended before each warm build"
    assert set(figures) == {"cold_s", "warm_s", "warm_max_s"}
    assert 0 < figures["warm_s"] <= figures["warm_max_s"] and figures["cold_s"] > 0
    print_figures(figures, path=session.path, entries=session.count)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"entries: {session.count}" and lines[2].startswith("cold_s: ")


def test_refresh_figures_refuse_a_board_without_the_one_session(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="expected the one pi session"):
        refresh_figures("pi", tmp_path / "home", tmp_path / "state", tmp_path / "none.jsonl", lambda: None)


def test_bench_main_writes_a_session_in_a_scratch_home_prints_its_figures_and_removes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cargento.testing.longsession import LongSession, bench_main

    homes: list[Path] = []

    def write(home: Path, start: datetime, entries: int) -> LongSession:
        homes.append(home)
        assert (home / "work").is_dir() and datetime.now(UTC) - start >= timedelta(minutes=50)
        session = PiStore(home).session(cwd=str(home / "work"), at=start)
        for i in range(entries // 2):
            session.prompt(f"step {i}", start + timedelta(seconds=i))
            session.reply("Done.", start + timedelta(seconds=i, milliseconds=500))
        return LongSession(session.path, lambda: session.reply("More.", datetime.now(UTC)), {"entries": session.count})

    assert (
        bench_main("A bench.", "pi", unit="entries", default=8, write=write, argv=["--entries", "6", "--appends", "2"])
        == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "entries: 6" and [line.split(":")[0] for line in lines[1:]] == [
        "size_mb",
        "cold_s",
        "warm_s",
        "warm_max_s",
    ]
    assert homes and not homes[0].exists(), "the scratch HOME is removed"
