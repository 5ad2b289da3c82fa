"""What the board's readers keep per appended record, over simulated hours (not a test).

A board builder runs in a process of its own, so that only what the board keeps is traced:
this process writes the benchmark's stores (``stores.populate``: *per_harness* sessions of each
harness) and appends one record to every session each round, *step_s* seconds of simulated time
apart, each with its own timestamp; the builder's process builds the board at that moment after
each round. The builder's traced heap is read (after a collection) at the end of each simulated
hour, and a figure is its growth from the end of the *warm* hours to the end of the last,
divided by the records appended in between. The warm hours fill the caches and the bounded
structures (Antigravity's newest 400 steps, Claude's discovery heap of about 1,030 moments,
which then compacts and makes the hours saw-toothed, so a figure spans several hours):

- ``kept_bytes_per_append_<harness>``: each harness alone, in a builder of its own;
- ``kept_bytes_per_append``: the ten together (their growth over their appends).

A reader whose state is bounded by a window or a count levels off (a figure near zero once the
bound is reached); one that keeps a fact per record (Pi's tree, Gemini's messages) does not.
The fourteenth pass of docs/benchmark.md explains the figures.

``python bench/retention.py [--quick]`` runs it alone; ``bench/run.py`` runs it with
``startup``.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import tracemalloc
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import stores  # noqa: E402

HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")


def _builder(conn: Connection, home: str, state: str, only: list[str] | None) -> None:
    """The builder's process: build at each moment it is sent; answer ``None`` after a build
    and the traced heap's size when asked for it (``"heap"``)."""
    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry
    from cargento.processes import StaticProcesses

    env = {"HOME": home, "CARGENTO_HOME": state, "PATH": os.environ.get("PATH", "")}
    builder = BoardBuilder(
        load_registry(env={}, only=only), env=env, home=Path(home), window_hours=24, processes=StaticProcesses()
    )
    tracemalloc.start(1)
    while True:
        asked = conn.recv()
        if asked is None:
            return
        if asked == "heap":
            gc.collect()
            conn.send(tracemalloc.get_traced_memory()[0])
        else:
            builder.build(now=asked)
            conn.send(None)


def kept_per_append(
    only: list[str] | None, *, per_harness: int = 2, step_s: float = 12.0, warm: int = 2, hours: int = 5
) -> dict[str, Any]:
    """The builder's heap at the end of each simulated hour, and its growth per appended record
    after the *warm* hours."""
    root = Path(tempfile.mkdtemp(prefix="cargento-retention-"))
    try:
        home = root / "home"
        start = datetime.now(UTC)
        lives = [live for live in stores.populate(home, per_harness, start) if only is None or live.harness in only]
        ours, theirs = multiprocessing.get_context("fork").Pipe()
        child = multiprocessing.get_context("fork").Process(
            target=_builder, args=(theirs, str(home), str(root / "state"), only), daemon=True
        )
        child.start()
        try:
            moment = start
            ours.send(moment)
            ours.recv()
            rounds = round(3600.0 / step_s)
            heaps: list[int] = []
            for _ in range(hours):
                for _ in range(rounds):
                    moment += timedelta(seconds=step_s)
                    for live in lives:
                        live.append(moment)
                    ours.send(moment)
                    ours.recv()
                ours.send("heap")
                heaps.append(ours.recv())
            ours.send(None)
        finally:
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
        appends = rounds * len(lives) * (hours - warm)
        grown = heaps[-1] - heaps[warm - 1]
        return {
            "sessions": len(lives),
            "heap_at_each_hour_mb": [round(h / 1e6, 3) for h in heaps],
            "appends_after_warm": appends,
            "grown_after_warm_bytes": grown,
            "bytes_per_append_after_warm": round(grown / appends, 1),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def measure(*, quick: bool = False) -> dict[str, Any]:
    """Each harness alone (with *quick*: one session, three hours, and the bounds not all
    reached by the end of the first, so the bounded harnesses read high)."""
    per, step, warm, hours = (1, 12.0, 1, 3) if quick else (2, 12.0, 2, 5)
    out: dict[str, Any] = {"per_harness": per, "step_s": step, "warm_hours": warm, "hours": hours}
    for harness in HARNESSES:
        out[harness] = kept_per_append([harness], per_harness=per, step_s=step, warm=warm, hours=hours)
    return out


def figures(result: dict[str, Any]) -> dict[str, float]:
    """Bytes kept per appended record after the warm hours: overall and per harness."""
    parts = {name: part for name, part in result.items() if isinstance(part, dict) and "grown_after_warm_bytes" in part}
    found: dict[str, float] = {}
    if parts:
        grown = sum(p["grown_after_warm_bytes"] for p in parts.values())
        found["kept_bytes_per_append"] = round(grown / sum(p["appends_after_warm"] for p in parts.values()), 1)
    for name, part in parts.items():
        found[f"kept_bytes_per_append_{name}"] = part["bytes_per_append_after_warm"]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one session a harness, a record every 24 s")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    result = measure(quick=args.quick)
    for name, value in figures(result).items():
        print(f"{name:<42} {value:>8.1f} B")
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
