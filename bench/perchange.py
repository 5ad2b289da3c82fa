"""What one change costs the server, in process: one lifecycle event's build at N sessions.

Not a test. ``python bench/perchange.py [--per 64] [--events 200] [--profile]`` builds the
dashboard's app as ``cargento`` does (every feature, the event hub), over the benchmark's
synthetic stores, and then, for each of *events* lifecycle events (a prompt, then a stop, for
one Claude session after another), takes it through the hub and one build of the live board the
way the event's SSE revision is made: the hub's ``ingest``, the builder's ``build``, the hub's
``on_board``, every feature's ``on_board`` and the stable order. It prints the median and min
of each part (milliseconds), and with ``--profile`` the cProfile of the whole loop.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import stores  # noqa: E402
from run import env_for  # noqa: E402


class Parts:
    """Wall-clock seconds per named part, one list per part."""

    def __init__(self) -> None:
        self.samples: dict[str, list[float]] = {}
        self.recording = False

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                if self.recording:
                    self.samples.setdefault(name, []).append(time.perf_counter() - start)

        return timed

    def table(self) -> dict[str, dict[str, float]]:
        return {
            name: {"median_ms": statistics.median(v) * 1000.0, "min_ms": min(v) * 1000.0, "n": len(v)}
            for name, v in self.samples.items()
        }


def measure(per_harness: int, events: int, profile: bool) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="cargento-bench-change-"))
    try:
        home = root / "home"
        lives = stores.populate(home, per_harness, datetime.now(UTC))
        env = env_for(home, root / "state")
        os.environ.update({"CARGENTO_HOME": env["CARGENTO_HOME"]})
        from cargento.cli import Options
        from cargento_web.environment import Served
        from cargento_web.server import build_app
        from cargento_web.settings import Settings

        settings = Settings(port=free_port(), pid=os.getpid(), started_at=datetime.now(UTC))
        app, hub = build_app(Options(), Served(env=env, home=home), settings)
        live = app.state.live
        parts = Parts()
        builder = live.builder(False)
        builder.build = parts.wrap("builder.build", builder.build)  # type: ignore[method-assign]
        hub_any: Any = hub
        hub_any.on_board = parts.wrap("hub.on_board", hub_any.on_board)
        for ext in live.extensions.items:
            ext.on_board = parts.wrap(f"feature.{ext.name}", ext.on_board)  # type: ignore[method-assign]
        feed = live.feed(False)
        feed.order.apply = parts.wrap("order.apply", feed.order.apply)  # type: ignore[method-assign]
        ids = [x.session_id for x in lives if x.harness == "claude"]

        def one(i: int) -> None:
            body = {
                "hook_event_name": "UserPromptSubmit" if (i // len(ids)) % 2 == 0 else "Stop",
                "session_id": ids[i % len(ids)],
                "cwd": "/w/bench",
                "transcript_path": "/w/bench/x.jsonl",
            }
            start = time.perf_counter()
            hub_any.ingest("claude", body)
            mid = time.perf_counter()
            built = live._build_sync(feed, {})
            feed.order.apply(built, live.extensions.changes.peek(built))
            end = time.perf_counter()
            if parts.recording:
                parts.samples.setdefault("hub.ingest", []).append(mid - start)
                parts.samples.setdefault("whole build", []).append(end - mid)

        feed.order.apply(live._build_sync(feed, None))
        for i in range(20):
            one(i)
        parts.recording = True
        profiler = cProfile.Profile() if profile else None
        if profiler is not None:
            profiler.enable()
        for i in range(events):
            one(20 + i)
        if profiler is not None:
            profiler.disable()
            if os.environ.get("DUMP"):
                profiler.dump_stats(os.environ["DUMP"])
            pstats.Stats(profiler).sort_stats(os.environ.get("SORT", "cumulative")).print_stats(
                int(os.environ.get("TOP", "45"))
            )
        live.extensions.close()
        hub_any.close()
        return {"sessions": len(lives), "load_average": os.getloadavg()[0], "parts": parts.table()}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per", type=int, default=64, help="sessions per harness (64: 640 in all)")
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    result = measure(args.per, args.events, args.profile)
    print(f"{result['sessions']} sessions, load average {result['load_average']:.1f}")
    for name, row in result["parts"].items():
        print(f"  {name:<24} median {row['median_ms']:7.3f} ms   min {row['min_ms']:7.3f} ms   n {row['n']}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
