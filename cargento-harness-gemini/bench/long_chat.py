"""Benchmark: a Gemini CLI chat of 20,000 messages, refreshed after one more message.

Writes the chat under a temporary HOME with the package's store builder, then builds a board of
it with a fresh builder (cold) and again after each of a few appended model messages (warm,
the file watcher's report naming the chat). Prints the median of each. Not a test; the lead's
benchmark runs it::

    python cargento-harness-gemini/bench/long_chat.py [--messages 20000] [--appends 15]
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
from cargento_harness_gemini.fixtures import GeminiStore


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--appends", type=int, default=15)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cargento-gemini-long-"))
    try:
        home = root / "home"
        (home / "work").mkdir(parents=True)
        now = datetime.now(UTC)
        start = now - timedelta(minutes=50)
        chat = GeminiStore(home).session(cwd=str(home / "work"), at=start)
        pairs = args.messages // 2
        for i in range(pairs):
            at = start + timedelta(seconds=i * 2900 / pairs)
            chat.prompt(f"step {i}", at)
            chat.reply("Done.", at + timedelta(milliseconds=500), output_tokens=40)
        env = {"HOME": str(home), "CARGENTO_HOME": str(root / "state")}
        builder = BoardBuilder(load_registry(env={}, only=["gemini"]), env=env, home=home, processes=StaticProcesses())
        started = time.perf_counter()
        board = builder.build()
        cold_s = time.perf_counter() - started
        assert len(board.sessions) == 1, board.sessions
        warm: list[float] = []
        changes = {"gemini": frozenset({str(chat.path)})}
        for _ in range(args.appends):
            chat.reply("More.", datetime.now(UTC), output_tokens=40)
            started = time.perf_counter()
            builder.build(changes=changes)
            warm.append(time.perf_counter() - started)
        print(f"messages: {args.messages}")
        print(f"size_mb: {chat.path.stat().st_size / 1e6:.1f}")
        print(f"cold_s: {cold_s:.4f}")
        print(f"warm_s: {statistics.median(warm):.5f}")
        print(f"warm_max_s: {max(warm):.5f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
