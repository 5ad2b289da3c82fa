"""How a harness's refresh of one long session costs, for a plugin's benchmark script.

A reader that walks a whole session again on each change costs more with every record; one
that keeps its walk costs the same at a hundred records and at twenty thousand.
:func:`refresh_figures` builds a board of the one session with a fresh builder (cold), then
again after each of *appends* appended records, with the file watcher's report naming the file
(warm), and answers both::

    figures = refresh_figures("pi", home, state, session.path, lambda: session.reply("More.", now()))
    print_figures(figures, entries=session.count, path=session.path)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses

__all__ = ["print_figures", "refresh_figures"]


def refresh_figures(
    harness: str, home: Path, state: Path, path: Path, append: Callable[[], object], *, appends: int = 15
) -> dict[str, float]:
    """``cold_s`` (the first build), ``warm_s`` (the median build after one call of *append*)
    and ``warm_max_s``, for the one session of *harness* at *path* under *home*."""
    env = {"HOME": str(home), "CARGENTO_HOME": str(state)}
    builder = BoardBuilder(load_registry(env={}, only=[harness]), env=env, home=home, processes=StaticProcesses())
    started = time.perf_counter()
    board = builder.build()
    cold_s = time.perf_counter() - started
    if len(board.sessions) != 1:
        raise RuntimeError(f"expected the one {harness} session, the board has {len(board.sessions)}")
    warm: list[float] = []
    changes = {harness: frozenset({str(path)})}
    for _ in range(appends):
        append()
        started = time.perf_counter()
        builder.build(changes=changes)
        warm.append(time.perf_counter() - started)
    return {"cold_s": cold_s, "warm_s": statistics.median(warm), "warm_max_s": max(warm)}


def print_figures(figures: dict[str, float], *, path: Path, **counts: int) -> None:
    """The figures as ``name: value`` lines (the lead's ``bench/run.py`` reads them), after
    *counts* (``messages=20000``...) and the file's size."""
    for name, count in counts.items():
        print(f"{name}: {count}")
    print(f"size_mb: {path.stat().st_size / 1e6:.1f}")
    print(f"cold_s: {figures['cold_s']:.4f}")
    print(f"warm_s: {figures['warm_s']:.5f}")
    print(f"warm_max_s: {figures['warm_max_s']:.5f}")
