"""Benchmark: a Pi session of 20,000 entries, refreshed after one more entry.

Writes the session under a temporary HOME with the package's store builder (prompts, tool
calls and their results, replies), then builds a board of it with a fresh builder (cold) and
again after each of a few appended replies (warm, the file watcher's report naming the file).
Prints the median of each. Not a test; the lead's benchmark runs it::

    python cargento-harness-pi/bench/long_session.py [--entries 20000] [--appends 15]
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.longsession import LongSession, bench_main
from cargento_harness_pi.fixtures import PiStore


def write(home: Path, start: datetime, entries: int) -> LongSession:
    session = PiStore(home).session(cwd=str(home / "work"), at=start)
    turns = entries // 4
    for i in range(turns):
        at = start + timedelta(seconds=i * 2900 / turns)
        session.prompt(f"step {i}", at)
        call = session.tool("read", at + timedelta(milliseconds=200), arguments={"path": f"src/f{i}.py"})
        session.tool_result(call, "read", "contents", at + timedelta(milliseconds=300))
        session.reply("Done.", at + timedelta(milliseconds=500), output=40)
    return LongSession(
        session.path,
        lambda: session.reply("More.", datetime.now(UTC), output=40),
        {"entries": session.count},
    )


def main() -> int:
    return bench_main(__doc__ or "", "pi", unit="entries", default=20_000, write=write)


if __name__ == "__main__":
    raise SystemExit(main())
