"""The inotify store watcher, on a real filesystem and a real event loop."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from cargento_web.runtime import inotify

pytestmark = pytest.mark.skipif(not inotify.available(), reason="inotify is Linux only")

Reports = list[list[str] | None]


def _run(body: Callable[[Reports], Coroutine[Any, Any, None]]) -> Reports:
    reports: Reports = []
    asyncio.run(body(reports))
    return reports


async def _settle(reports: Reports, count: int = 1, timeout: float = 2.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while len(reports) < count and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.005)


def _paths(reports: Reports) -> set[str]:
    return {p for batch in reports if batch is not None for p in batch}


def test_an_append_deep_in_a_recursive_root_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    (root / "a" / "b").mkdir(parents=True)
    transcript = root / "a" / "b" / "s.jsonl"
    transcript.write_text("{}\n")

    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([str(root)], [], reports.append)
        watch.start(asyncio.get_running_loop())
        assert watch.watches == 3
        with open(transcript, "a") as fh:
            fh.write("{}\n")
        await _settle(reports)
        watch.close()

    reports = _run(body)
    assert str(transcript) in _paths(reports)


def test_a_new_directory_is_watched_and_its_files_reported(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    staged = tmp_path / "staged"
    (staged / "2026" / "12").mkdir(parents=True)
    (staged / "2026" / "12" / "rollout.jsonl").write_text("{}\n")

    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([str(root)], [], reports.append)
        watch.start(asyncio.get_running_loop())
        # A tree moved in whole: its file was written before any watch could see it.
        os.rename(staged / "2026", root / "2026")
        await _settle(reports)
        moved = root / "2026" / "12" / "rollout.jsonl"
        assert str(moved) in _paths(reports)
        reports.clear()
        with open(moved, "a") as fh:
            fh.write("{}\n")
        await _settle(reports)
        assert str(moved) in _paths(reports)
        watch.close()

    _run(body)


def test_a_shallow_directory_does_not_see_below_itself(tmp_path: Path) -> None:
    (tmp_path / "deeper").mkdir()

    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([], [str(tmp_path)], reports.append)
        watch.start(asyncio.get_running_loop())
        assert watch.watches == 1
        (tmp_path / "deeper" / "x.db").write_text("x")
        await asyncio.sleep(0.2)
        assert reports == []
        (tmp_path / "store.db-wal").write_text("x")
        await _settle(reports)
        watch.close()

    reports = _run(body)
    assert str(tmp_path / "store.db-wal") in _paths(reports)


def test_a_vanished_root_is_reported_as_unknown(tmp_path: Path) -> None:
    root = tmp_path / "store"
    (root / "inner").mkdir(parents=True)

    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([str(root)], [], reports.append)
        watch.start(asyncio.get_running_loop())
        shutil.rmtree(root)
        await _settle(reports)
        await asyncio.sleep(0.05)
        watch.close()

    assert None in _run(body)


def test_opening_and_reading_a_store_reports_nothing(tmp_path: Path) -> None:
    """Another program listing or reading the store must not wake the dashboard."""
    (tmp_path / "s.jsonl").write_text("{}\n")

    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([str(tmp_path)], [], reports.append)
        watch.start(asyncio.get_running_loop())
        for _ in range(5):
            os.listdir(tmp_path)
            (tmp_path / "s.jsonl").read_text()
        await asyncio.sleep(0.2)
        watch.close()

    assert _run(body) == []


def test_a_missing_root_is_no_error_and_close_is_idempotent(tmp_path: Path) -> None:
    async def body(reports: Reports) -> None:
        watch = inotify.InotifyWatch([str(tmp_path / "absent")], [str(tmp_path / "also-absent")], reports.append)
        watch.start(asyncio.get_running_loop())
        assert watch.watches == 0
        watch.close()
        watch.close()

    assert _run(body) == []
