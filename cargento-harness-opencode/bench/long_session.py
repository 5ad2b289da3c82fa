"""Benchmark: an OpenCode session of 10,000 messages, refreshed after one more turn.

Writes the session into an ``opencode.db`` under a temporary HOME (the package's store builder
for the session, then the messages in one transaction, shaped as the builder writes them),
builds a board of it with a fresh builder (cold) and again after each of a few more turns
(a prompt, a reply, its completion: warm, the file watcher's report naming the database).
Prints the median of each. Not a test; the lead's benchmark runs it::

    python cargento-harness-opencode/bench/long_session.py [--messages 10000] [--appends 15]
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.longsession import LongSession, bench_main
from cargento_harness_opencode.fixtures import OpenCodeSession, OpenCodeStore


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def _history(store: OpenCodeStore, session: OpenCodeSession, start: datetime, messages: int) -> None:
    """*messages* messages of finished turns (a prompt, then a completed reply of 40 output
    tokens), written in one transaction."""
    rows = []
    pairs = messages // 2
    for i in range(pairs):
        at = start + timedelta(seconds=i * 2900 / pairs)
        done = at + timedelta(milliseconds=500)
        user = store.new_id("msg", at)
        rows.append(
            (user, session.session_id, _ms(at), _ms(at), json.dumps({"role": "user", "time": {"created": _ms(at)}}))
        )
        reply = {
            "parentID": user,
            "role": "assistant",
            "mode": "build",
            "agent": "build",
            "cost": 0,
            "tokens": {"input": 10, "output": 40, "reasoning": 0, "cache": {"read": 0, "write": 0}},
            "modelID": "claude-sonnet-4-5",
            "providerID": "anthropic",
            "time": {"created": _ms(at), "completed": _ms(done)},
            "finish": "stop",
        }
        rows.append((store.new_id("msg", at), session.session_id, _ms(at), _ms(done), json.dumps(reply)))
    conn = sqlite3.connect(store.path)
    try:
        conn.executemany(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", rows
        )
        conn.commit()
    finally:
        conn.close()


def write(home: Path, start: datetime, messages: int) -> LongSession:
    store = OpenCodeStore(home)
    session = store.session(cwd=str(home / "work"), at=start, title="A long session")
    _history(store, session, start, messages)

    def one_more_turn() -> None:
        now = datetime.now(UTC)
        session.prompt("One more step", now)
        session.reply(now)
        session.end_turn(now + timedelta(milliseconds=200), output_tokens=40)

    return LongSession(store.path, one_more_turn, {"messages": messages})


def main() -> int:
    return bench_main(__doc__ or "", "opencode", unit="messages", default=10_000, write=write)


if __name__ == "__main__":
    raise SystemExit(main())
