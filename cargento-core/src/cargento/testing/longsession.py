"""How a harness's refresh of one long session costs, for a plugin's benchmark script.

A reader that walks a whole session again on each change costs more with every record; one
that keeps its walk costs the same at a hundred records and at twenty thousand.
:func:`refresh_figures` builds a board of the one session with a fresh builder (cold), then
again after each of *appends* appended records, with the file watcher's report naming the file
(warm), and answers both::

    figures = refresh_figures("pi", home, state, session.path, lambda: session.reply("More.", now()))
    print_figures(figures, entries=session.count, path=session.path)

:func:`bench_main` is a whole benchmark script's ``main``: its options, a scratch HOME, the
session the script writes there (a :class:`LongSession`), the figures printed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses

__all__ = ["LongSession", "bench_main", "print_figures", "refresh_figures"]


class LongSession(NamedTuple):
    """What a benchmark script wrote: the session's file, how to add one more record to it,
    and the counts to print (``{"messages": 20000}``)."""

    path: Path
    append: Callable[[], object]
    counts: Mapping[str, int]


def bench_main(
    doc: str,
    harness: str,
    *,
    unit: str,
    default: int,
    write: Callable[[Path, datetime, int], LongSession],
    argv: list[str] | None = None,
) -> int:
    """Run a long-session benchmark: ``--<unit> N`` (*default*) and ``--appends``, then
    *write(home, start, N)* under a scratch HOME (a ``work`` folder made in it, *start* fifty
    minutes ago), the figures of :func:`refresh_figures` printed and the HOME removed."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument(f"--{unit}", type=int, default=default, dest="count")
    parser.add_argument("--appends", type=int, default=15)
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix=f"cargento-{harness}-long-"))
    try:
        home = root / "home"
        (home / "work").mkdir(parents=True)
        made = write(home, datetime.now(UTC) - timedelta(minutes=50), args.count)
        figures = refresh_figures(harness, home, root / "state", made.path, made.append, appends=args.appends)
        print_figures(figures, path=made.path, **made.counts)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


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
