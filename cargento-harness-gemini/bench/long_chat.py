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
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.longsession import print_figures, refresh_figures
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
        start = datetime.now(UTC) - timedelta(minutes=50)
        chat = GeminiStore(home).session(cwd=str(home / "work"), at=start)
        pairs = args.messages // 2
        for i in range(pairs):
            at = start + timedelta(seconds=i * 2900 / pairs)
            chat.prompt(f"step {i}", at)
            chat.reply("Done.", at + timedelta(milliseconds=500), output_tokens=40)
        figures = refresh_figures(
            "gemini",
            home,
            root / "state",
            chat.path,
            lambda: chat.reply("More.", datetime.now(UTC), output_tokens=40),
            appends=args.appends,
        )
        print_figures(figures, path=chat.path, messages=args.messages)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
