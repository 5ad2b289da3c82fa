"""Benchmark: a Pi session of 20,000 entries, refreshed after one more entry.

Writes the session under a temporary HOME with the package's store builder (prompts, tool
calls and their results, replies), then builds a board of it with a fresh builder (cold) and
again after each of a few appended replies (warm, the file watcher's report naming the file).
Prints the median of each. Not a test; the lead's benchmark runs it::

    python cargento-harness-pi/bench/long_session.py [--entries 20000] [--appends 15]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento_harness_pi.fixtures import PiStore


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--appends", type=int, default=15)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cargento-pi-long-"))
    try:
        home = root / "home"
        (home / "work").mkdir(parents=True)
        now = datetime.now(UTC)
        start = now - timedelta(minutes=50)
        session = PiStore(home).session(cwd=str(home / "work"), at=start)
        turns = args.entries // 4
        for i in range(turns):
            at = start + timedelta(seconds=i * 2900 / turns)
            session.prompt(f"step {i}", at)
            call = session.tool("read", at + timedelta(milliseconds=200), arguments={"path": f"src/f{i}.py"})
            session.tool_result(call, "read", "contents", at + timedelta(milliseconds=300))
            session.reply("Done.", at + timedelta(milliseconds=500), output=40)
        env = {"HOME": str(home), "CARGENTO_HOME": str(root / "state")}
        builder = BoardBuilder(load_registry(env={}, only=["pi"]), env=env, home=home, processes=StaticProcesses())
        started = time.perf_counter()
        board = builder.build()
        cold_s = time.perf_counter() - started
        assert len(board.sessions) == 1, board.sessions
        warm: list[float] = []
        changes = {"pi": frozenset({str(session.path)})}
        for _ in range(args.appends):
            session.reply("More.", datetime.now(UTC), output=40)
            started = time.perf_counter()
            builder.build(changes=changes)
            warm.append(time.perf_counter() - started)
        print(f"entries: {session.count}")
        print(f"size_mb: {session.path.stat().st_size / 1e6:.1f}")
        print(f"cold_s: {cold_s:.4f}")
        print(f"warm_s: {statistics.median(warm):.5f}")
        print(f"warm_max_s: {max(warm):.5f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
