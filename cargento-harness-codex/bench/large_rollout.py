"""Benchmark: a 300 MB Codex rollout whose newest prompt and plan sit 250 MB from the end.

Writes the rollout under a temporary HOME with the package's store builder, then reads it in a
fresh child process (so the figures are the reader's own): a cold read (the backward walk)
and a warm read after a few records are appended (the incremental follower). Prints the wall
time of each and the child's peak resident set size. Not a test; the lead's benchmark runs it::

    python cargento-harness-codex/bench/large_rollout.py [--size-mb 300] [--gap-mb 250] [--keep]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import make_context
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore

SESSION = "01a22b67-0000-7000-8000-00000000b3c4"
T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
BLOB = 900 * 1024


def write(home: Path, size_mb: int, gap_mb: int) -> tuple[Path, datetime]:
    """The rollout: an earlier turn, the newest prompt and plan, then *gap_mb* of later work."""
    store = CodexStore(home)
    s = store.session(SESSION, cwd="/w/bench", at=T0, instructions_bytes=30_000)
    at = T0
    s.turn_start(at)
    s.turn_context("gpt-5-codex", at)
    s.prompt("An earlier request", at)
    before = (size_mb - gap_mb) * 1024 * 1024
    while s.path.stat().st_size < before:
        at += timedelta(milliseconds=200)
        s.reasoning(BLOB, at)
        s.tokens(25, at)
    s.end_turn(at)
    s.turn_start(at)
    s.turn_context("gpt-5-codex", at)
    s.prompt("Migrate the billing jobs to the new queue", at)
    s.agent("I'll map the jobs first.", at)
    s.plan([("Map jobs", "completed"), ("Port workers", "in_progress"), ("Backfill", "pending")], at, shape="exec")
    target = size_mb * 1024 * 1024
    n = 0
    while s.path.stat().st_size < target:
        at += timedelta(milliseconds=200)
        n += 1
        if n % 40 == 0:
            s.reasoning(6 * 1024 * 1024, at)  # longer than the reader's line bound: skipped unread
        else:
            s.reasoning(BLOB, at)
        if n % 5 == 0:
            call = s.tool("exec_command", at, arguments={"cmd": "pytest -q"})
            s.tool_output(call, at, "x" * 4000)
            s.tokens(40, at)
    return s.path, at


def measure(home: Path, now_iso: str) -> dict[str, object]:
    """Run in the child: a cold read, three appended records, a warm read."""
    now = datetime.fromisoformat(now_iso)
    ctx = make_context(home, now=now, window_s=None)
    started = time.perf_counter()
    ref = plugin.discover(ctx=ctx).sessions[0]
    reading = plugin.read_session(ref=ref, ctx=ctx)
    usage = plugin.usage(reading=reading, ctx=ctx)
    cold_s = time.perf_counter() - started
    cold_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    store = CodexStore(home)
    path = Path(ref.path)
    with open(path, "ab") as fh:
        for payload in (
            {"type": "event_msg", "payload": {"type": "user_message", "message": "Also update the docs"}},
            {"type": "event_msg", "payload": {"type": "task_complete", "duration_ms": 1000}},
        ):
            fh.write(json.dumps({"timestamp": (now + timedelta(seconds=1)).isoformat(), **payload}).encode() + b"\n")
    del store
    started = time.perf_counter()
    ref = plugin.discover(ctx=ctx).sessions[0]
    warm = plugin.read_session(ref=ref, ctx=ctx)
    plugin.usage(reading=warm, ctx=ctx)
    warm_s = time.perf_counter() - started
    assert reading is not None and warm is not None
    return {
        "file_mb": round(path.stat().st_size / 2**20, 1),
        "cold_s": round(cold_s, 2),
        "warm_s": round(warm_s, 4),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_after_cold_mb": round(cold_rss / 1024, 1),
        "cold_title": reading.title,
        "cold_tasks": [(t.subject, t.status) for t in reading.tasks],
        "cold_output_total": usage.output_tokens_total if usage else None,
        "warm_title": warm.title,
        "warm_turn": warm.turn.state,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=300)
    parser.add_argument("--gap-mb", type=int, default=250)
    parser.add_argument("--keep", action="store_true", help="keep the generated home")
    parser.add_argument("--child", nargs=2, metavar=("HOME", "NOW"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(Path(args.child[0]), args.child[1])))
        return
    home = Path(tempfile.mkdtemp(prefix="cargento-bench-codex-"))
    try:
        started = time.perf_counter()
        _path, at = write(home, args.size_mb, args.gap_mb)
        written_s = time.perf_counter() - started
        now = (at + timedelta(seconds=30)).isoformat()
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(home), now], check=True, capture_output=True, text=True
        )
        result = json.loads(out.stdout)
        result["write_s"] = round(written_s, 1)
        for key, value in result.items():
            print(f"{key:>24}: {value}")
    finally:
        if args.keep:
            print(f"{'home':>24}: {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
