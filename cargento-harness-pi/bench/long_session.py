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
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.longsession import print_figures, refresh_figures
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
        start = datetime.now(UTC) - timedelta(minutes=50)
        session = PiStore(home).session(cwd=str(home / "work"), at=start)
        turns = args.entries // 4
        for i in range(turns):
            at = start + timedelta(seconds=i * 2900 / turns)
            session.prompt(f"step {i}", at)
            call = session.tool("read", at + timedelta(milliseconds=200), arguments={"path": f"src/f{i}.py"})
            session.tool_result(call, "read", "contents", at + timedelta(milliseconds=300))
            session.reply("Done.", at + timedelta(milliseconds=500), output=40)
        figures = refresh_figures(
            "pi",
            home,
            root / "state",
            session.path,
            lambda: session.reply("More.", datetime.now(UTC), output=40),
            appends=args.appends,
        )
        print_figures(figures, path=session.path, entries=session.count)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
