"""Benchmark: a Gemini CLI chat of 20,000 messages, refreshed after one more message.

Writes the chat under a temporary HOME with the package's store builder, then builds a board of
it with a fresh builder (cold) and again after each of a few appended model messages (warm,
the file watcher's report naming the chat). Prints the median of each. Not a test; the lead's
benchmark runs it::

    python cargento-harness-gemini/bench/long_chat.py [--messages 20000] [--appends 15]
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.longsession import LongSession, bench_main
from cargento_harness_gemini.fixtures import GeminiStore


def write(home: Path, start: datetime, messages: int) -> LongSession:
    chat = GeminiStore(home).session(cwd=str(home / "work"), at=start)
    pairs = messages // 2
    for i in range(pairs):
        at = start + timedelta(seconds=i * 2900 / pairs)
        chat.prompt(f"step {i}", at)
        chat.reply("Done.", at + timedelta(milliseconds=500), output_tokens=40)
    return LongSession(
        chat.path,
        lambda: chat.reply("More.", datetime.now(UTC), output_tokens=40),
        {"messages": messages},
    )


def main() -> int:
    return bench_main(__doc__ or "", "gemini", unit="messages", default=20_000, write=write)


if __name__ == "__main__":
    raise SystemExit(main())
