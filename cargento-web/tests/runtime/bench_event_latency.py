"""Latency benchmark: a hook POST to the server-sent event carrying the new state.

Not a test (pytest does not collect it); ``nox -s bench`` runs it::

    python cargento-web/tests/runtime/bench_event_latency.py [--events 200] [--sessions 50] [--forwarder]

It serves the real dashboard app (``cargento_web.app.create_app``, so cargento-web must be
installed) with the real event hub over a fake harness of ``--sessions`` idle sessions, keeps
one ``/api/stream`` open as a page would, and for each of ``--events`` lifecycle events
(alternately a prompt and a stop on one session) measures the time from the start of the POST
to the ``board`` event whose revision carries the new state (checked against ``/api/data``).
With ``--forwarder`` each event goes through ``python -m cargento.forwarders.event_hook``,
the whole hook path including interpreter start. Prints p50 and p99 in milliseconds, and one
JSON line for the bench record.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--forwarder", action="store_true", help="send each event through the forwarder process")
    args = parser.parse_args(argv)

    import uvicorn
    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry
    from cargento.processes import StaticProcesses
    from cargento.statedir import CAPABILITY_HEADER
    from cargento.testing.fakes import FakeHarness, FakeSession
    from cargento_web.app import create_app
    from cargento_web.probe import bind_socket
    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier
    from cargento_web.settings import Settings

    tmp = Path(tempfile.mkdtemp(prefix="cargento-bench-"))
    sids = [f"bench-{n:04d}" for n in range(args.sessions)]
    registry = load_registry(
        entry_points=False, extra=[("claude", FakeHarness("claude", [FakeSession(s, age_s=3600) for s in sids]))]
    )
    builder = BoardBuilder(registry, env={"HOME": str(tmp)}, home=tmp, processes=StaticProcesses())
    hub = EventHub(
        clock=lambda: datetime.now(UTC), state_dir=tmp / "cargento", notifier=MemoryNotifier(), capability="bench"
    )
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = create_app(builder=builder, settings=Settings(port=port, watch=False), hub=hub)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    home = tmp / "cargento"
    home.mkdir(exist_ok=True)
    (home / f"cargento-{port}.json").write_text(json.dumps({"port": port, "capability": hub.capability}))
    env = {**os.environ, "CARGENTO_HOME": str(home), "CARGENTO_PORT": str(port)}

    boards: queue.Queue[tuple[int, float]] = queue.Queue()

    def stream() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/api/stream", headers={"Host": f"127.0.0.1:{port}"})
        response = conn.getresponse()
        name = None
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name == "board":
                boards.put((json.loads(line[6:])["revision"], time.perf_counter()))

    threading.Thread(target=stream, daemon=True).start()
    first, _ = boards.get(timeout=10)
    revision = first
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Content-Type": "application/json", CAPABILITY_HEADER: "bench", "Host": f"127.0.0.1:{port}"}

    def state_of(sid: str) -> str:
        conn.request("GET", "/api/data", headers={"Host": f"127.0.0.1:{port}"})
        doc = json.loads(conn.getresponse().read())
        return str(next(s["state"] for s in doc["sessions"] if s["session_id"] == sid))

    latencies: list[float] = []
    misses = 0
    for i in range(args.events):
        sid = sids[i % len(sids)]
        name, want = ("UserPromptSubmit", "working") if (i // len(sids)) % 2 == 0 else ("Stop", "idle")
        body = json.dumps({"session_id": sid, "hook_event_name": name, "prompt_id": f"p{i // len(sids)}"}).encode()
        started = time.perf_counter()
        if args.forwarder:
            subprocess.run(
                [sys.executable, "-m", "cargento.forwarders.event_hook", "claude"],
                input=body,
                env=env,
                check=True,
                timeout=30,
            )
        else:
            conn.request("POST", "/api/events/claude", body=body, headers=headers)
            conn.getresponse().read()
        # The first board event after the POST whose board carries the new state.
        deadline = time.perf_counter() + 10
        found = None
        while found is None and time.perf_counter() < deadline:
            try:
                seen, at = boards.get(timeout=max(0.01, deadline - time.perf_counter()))
            except queue.Empty:
                break
            if seen > revision:
                revision = seen
                if state_of(sid) == want:
                    found = at
        if found is None:
            misses += 1
        else:
            latencies.append((found - started) * 1000.0)
    server.should_exit = True
    hub.close()
    p50, p99 = _percentile(latencies, 0.50), _percentile(latencies, 0.99)
    print(
        f"hook POST -> SSE board event: n={len(latencies)} p50={p50:.1f} ms p99={p99:.1f} ms "
        f"mean={statistics.fmean(latencies) if latencies else float('nan'):.1f} ms misses={misses}"
        f"{' (through the forwarder process)' if args.forwarder else ''}"
    )
    record: dict[str, Any] = {
        "bench": "event_latency",
        "forwarder": args.forwarder,
        "n": len(latencies),
        "p50_ms": round(p50, 2),
        "p99_ms": round(p99, 2),
        "misses": misses,
        "sessions": args.sessions,
    }
    print(json.dumps(record))
    return 0 if misses == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
