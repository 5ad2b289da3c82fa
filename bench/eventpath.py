"""Where one lifecycle event's time goes, from the POST to its SSE frame, in a real server.

Not a test. ``python bench/eventpath.py [--per 64] [--events 200]`` writes the benchmark's
synthetic stores, starts the dashboard in a child process with ``perf_counter`` stamps put on
the event's path (the hub's ``ingest``, the live board's invalidation on the loop, the build's
start on the loop, the build on its worker thread, the builder, the hub's and the features'
``on_board``, the stable order, the publication to the stream queues, the SSE frame's
encoding), opens ``/api/stream`` and POSTs *events* lifecycle events the way the forwarder
does. ``perf_counter`` is the system's monotonic clock on Linux, so the client's stamps and the
server's are on one time line: it prints each segment's median and min (milliseconds) and the
whole event → SSE figure as ``bench/run.py`` measures it.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: The stamp names, in the order an event passes them.
STEPS = (
    "ingest.start",
    "ingest.end",
    "invalidated",
    "build.start",
    "build_sync.start",
    "builder.end",
    "hub.end",
    "features.end",
    "build_sync.end",
    "order.end",
    "publish",
    "sse.encode",
)


def install(out: str) -> None:
    """In the server process: stamp the event path; write the stamps to *out* at exit."""
    from cargento_web import live as live_mod
    from cargento_web import stream as stream_mod
    from cargento_web.extensions import Extensions
    from cargento_web.order import StableOrder
    from cargento_web.runtime.hub import EventHub

    stamps: list[tuple[str, float]] = []
    clock = time.perf_counter

    def around(owner: Any, name: str, before: str | None, after: str | None) -> None:
        fn = getattr(owner, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if before:
                stamps.append((before, clock()))
            try:
                return fn(*args, **kwargs)
            finally:
                if after:
                    stamps.append((after, clock()))

        setattr(owner, name, wrapped)

    def around_async(owner: Any, name: str, before: str) -> None:
        fn = getattr(owner, name)

        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            stamps.append((before, clock()))
            return await fn(*args, **kwargs)

        setattr(owner, name, wrapped)

    around(EventHub, "ingest", "ingest.start", "ingest.end")
    around(live_mod.LiveBoard, "_invalidated", "invalidated", None)
    around_async(live_mod.LiveBoard, "_build", "build.start")
    around(live_mod.LiveBoard, "_build_sync", "build_sync.start", "build_sync.end")
    around(EventHub, "on_board", None, "hub.end")
    around(Extensions, "on_board", None, "features.end")
    around(StableOrder, "apply", None, "order.end")
    around(live_mod.Feed, "publish", "publish", None)
    around(stream_mod, "encode_event", "sse.encode", None)
    from cargento.board import builder as builder_mod

    around(builder_mod.BoardBuilder, "build", None, "builder.end")
    atexit.register(lambda: Path(out).write_text(json.dumps(stamps)))


def serve(out: str, argv: list[str]) -> int:
    install(out)
    from cargento.cli import main

    sys.argv = ["cargento", *argv]
    return int(main() or 0)


def measure(per_harness: int, events: int) -> dict[str, Any]:
    import stores
    from run import Stream, env_for, free_port

    root = Path(tempfile.mkdtemp(prefix="cargento-bench-path-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        home = root / "home"
        lives = stores.populate(home, per_harness, datetime.now(UTC))
        env = env_for(home, root / "state")
        port = free_port()
        out = root / "stamps.json"
        proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(out), "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        httpx.get(base + "/api/data", timeout=60)
        stream = Stream(base)
        time.sleep(1.0)
        capability = json.loads((root / "state" / f"cargento-{port}.json").read_text())["capability"]
        headers = {"X-Cargento-Capability": capability, "Content-Type": "application/json"}
        ids = [x.session_id for x in lives if x.harness == "claude"]
        posts: list[tuple[float, float, float | None]] = []
        cpu_before = process_cpu_s(proc.pid)
        with httpx.Client(base_url=base, headers=headers, timeout=5) as client:
            for i in range(events):
                body = {
                    # A prompt, then (once every session had one) a stop: every event moves a row.
                    "hook_event_name": "UserPromptSubmit" if (i // len(ids)) % 2 == 0 else "Stop",
                    "session_id": ids[i % len(ids)],
                    "cwd": "/w/bench",
                    "transcript_path": "/w/bench/x.jsonl",
                }
                rev = stream.latest()
                start = time.perf_counter()
                client.post("/api/events/claude", json=body)
                answered = time.perf_counter()
                got = stream.wait_after(start, rev, timeout=2.0)
                posts.append((start, answered, None if got is None else start + got / 1000.0))
                time.sleep(0.02)
        cpu_ms = (process_cpu_s(proc.pid) - cpu_before) * 1000.0
        proc.terminate()
        proc.wait(timeout=20)
        stamps: list[tuple[str, float]] = json.loads(out.read_text())
        return {
            "sessions": len(lives),
            "load_average": os.getloadavg()[0],
            # The server's CPU time per event (its whole process, every thread): the figure a
            # loaded machine disturbs least.
            "server_cpu_per_event_ms": cpu_ms / max(1, len(posts)),
            **segments(posts, stamps),
        }
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        shutil.rmtree(root, ignore_errors=True)


def process_cpu_s(pid: int) -> float:
    """User and system CPU seconds process *pid* has used (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def segments(posts: list[tuple[float, float, float | None]], stamps: list[tuple[str, float]]) -> dict[str, Any]:
    """Per event, the first stamp of each step after its POST began and before its frame
    arrived; the time from one step to the next, summarised over the events."""
    gaps: dict[str, list[float]] = {}
    whole: list[float] = []
    answered: list[float] = []
    for start, answer, arrived in posts:
        answered.append((answer - start) * 1000.0)
        if arrived is None:
            continue
        whole.append((arrived - start) * 1000.0)
        inside = [(n, t) for n, t in stamps if start <= t <= arrived]
        at: dict[str, float] = {}
        for name, t in inside:
            at.setdefault(name, t)
        prev_name, prev_t = "post", start
        for name in STEPS:
            if name in at:
                gaps.setdefault(f"{prev_name} -> {name}", []).append((at[name] - prev_t) * 1000.0)
                prev_name, prev_t = name, at[name]
        gaps.setdefault(f"{prev_name} -> frame read", []).append((arrived - prev_t) * 1000.0)
    summarise: Callable[[list[float]], dict[str, float]] = lambda v: {  # noqa: E731
        "median": statistics.median(v),
        "min": min(v),
        "n": len(v),
    }
    return {
        "event_to_sse_ms": summarise(whole) if whole else {},
        "post_answered_ms": summarise(answered),
        "segments_ms": {k: summarise(v) for k, v in gaps.items()},
    }


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["--serve"]:
        return serve(args_in[1], args_in[2:])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per", type=int, default=64, help="sessions per harness (64: 640 in all)")
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args(args_in)
    result = measure(args.per, args.events)
    print(f"{result['sessions']} sessions, load average {result['load_average']:.1f}")
    e = result["event_to_sse_ms"]
    print(f"  event -> SSE          median {e['median']:7.3f} ms   min {e['min']:7.3f} ms   n {e['n']}")
    print(f"  server CPU per event  {result['server_cpu_per_event_ms']:7.3f} ms")
    a = result["post_answered_ms"]
    print(f"  POST answered         median {a['median']:7.3f} ms   min {a['min']:7.3f} ms")
    for name, row in result["segments_ms"].items():
        print(f"  {name:<34} median {row['median']:7.3f} ms   min {row['min']:7.3f} ms   n {row['n']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
