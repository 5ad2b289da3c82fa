"""What one append costs the builder at N sessions, and where (``--profile``).

Not a test. ``python bench/oneappend.py [--per 64] [--appends 300] [--profile]``: the
benchmark's synthetic stores, one warm builder, then *appends* one-record appends to one Claude
session after another, each followed by the build a file watcher's change causes. Prints the
median and min (milliseconds) and, with ``--profile``, the cProfile of the loop by own time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import stores  # noqa: E402
from cargento.board import BoardBuilder  # noqa: E402
from cargento.plugins import load_registry  # noqa: E402
from cargento.processes import StaticProcesses  # noqa: E402
from run import env_for  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per", type=int, default=64)
    parser.add_argument("--appends", type=int, default=300)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="cargento-bench-append-"))
    try:
        home = root / "home"
        lives = stores.populate(home, args.per, datetime.now(UTC))
        env = env_for(home, root / "state")
        builder = BoardBuilder(load_registry(env={}), env=env, home=home, processes=StaticProcesses())
        builder.build()
        claude = [x for x in lives if x.harness == "claude"]
        times: list[float] = []
        profiler = cProfile.Profile() if args.profile else None
        for i in range(args.appends):
            live = claude[i % len(claude)]
            live.append(datetime.now(UTC))
            changes = {"claude": frozenset({str(live.path)})}
            if profiler is not None:
                profiler.enable()
            start = time.perf_counter()
            builder.build(changes=changes)
            times.append((time.perf_counter() - start) * 1000.0)
            if profiler is not None:
                profiler.disable()
        print(
            f"{len(lives)} sessions: one append median {statistics.median(times):.3f} ms, "
            f"min {min(times):.3f} ms (load average {os.getloadavg()[0]:.1f})"
        )
        if profiler is not None:
            pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "tottime")).print_stats(
                int(os.environ.get("TOP", "40"))
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
