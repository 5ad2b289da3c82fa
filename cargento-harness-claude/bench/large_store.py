"""Large-store benchmark for the Claude Code plugin (not a test; the lead's benchmark calls it).

Generates, in a temporary directory, a 200 MB transcript and a projects tree of 20,000
transcript files, then reads each in a fresh child process, cold and then warm (the plugin's
cache kept between the two, as between two board builds), and prints the wall time of each
read and the child's peak RSS (``resource.getrusage``)::

    python bench/large_store.py [--mb 200] [--files 20000] [--keep DIR]

The transcript is read twice: with the default cold-read bound (only the last
``MAX_COLD_SCAN_BYTES`` of a larger file are folded on the first read) and with the bound
lifted (``--full``: the whole file folded once, sequentially, in bounded memory).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
SID = "0b1e0b1e-0000-4000-8000-000000000001"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def write_transcript(path: Path, size_mb: int) -> int:
    """A transcript of about *size_mb* MB: prompts, tool calls and results, large attachments."""
    path.parent.mkdir(parents=True, exist_ok=True)
    target = size_mb * 1024 * 1024
    start = NOW - timedelta(hours=6)
    blob = "x" * 48_000
    written = records = 0
    step = 0
    with open(path, "wb") as fh:
        while written < target:
            at = start + timedelta(milliseconds=step * 50)
            step += 1
            base = {
                "sessionId": SID,
                "cwd": "/w/big",
                "version": "2.1.332",
                "timestamp": _iso(at),
                "uuid": str(uuid.uuid4()),
            }
            batch = [
                {
                    **base,
                    "type": "user",
                    "message": {"role": "user", "content": f"request {step}"},
                    "promptSource": "typed",
                    "turnOrigin": "human",
                },
                {**base, "type": "attachment", "attachment": {"type": "prompt_snapshot", "systemPrompt": [blob]}},
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{step}",
                        "model": "claude-opus-5-5",
                        "content": [
                            {"type": "tool_use", "id": f"t{step}", "name": "Bash", "input": {"command": "pytest -q"}}
                        ],
                        "stop_reason": "tool_use",
                        "usage": {"output_tokens": 40},
                    },
                },
                {
                    **base,
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"t{step}",
                                "content": "ok " * 500,
                                "is_error": False,
                            }
                        ],
                    },
                },
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{step}b",
                        "model": "claude-opus-5-5",
                        "content": [{"type": "text", "text": "done " * 50}],
                        "stop_reason": "end_turn",
                        "usage": {"output_tokens": 60},
                    },
                },
                {**base, "type": "system", "subtype": "turn_duration", "durationMs": 1000},
            ]
            for record in batch:
                line = json.dumps(record, separators=(",", ":")).encode() + b"\n"
                fh.write(line)
                written += len(line)
                records += 1
    os.utime(path, (NOW.timestamp() - 5, NOW.timestamp() - 5))
    return records


def write_tree(root: Path, files: int, *, recent_every: int = 2) -> None:
    """*files* small transcripts over 200 project folders; one in *recent_every* inside the
    24-hour window, the rest three days old."""
    per = max(1, files // 200)
    made = 0
    for p in range(200):
        folder = root / ".claude" / "projects" / f"-w-project-{p:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(per):
            if made >= files:
                return
            sid = str(uuid.uuid4())
            at = NOW - timedelta(hours=2 if made % recent_every == 0 else 72, seconds=made)
            lines = [
                {
                    "type": "user",
                    "sessionId": sid,
                    "cwd": f"/w/project-{p:03d}",
                    "timestamp": _iso(at),
                    "message": {"role": "user", "content": f"task {made}"},
                    "promptSource": "typed",
                    "turnOrigin": "human",
                },
                {
                    "type": "assistant",
                    "sessionId": sid,
                    "cwd": f"/w/project-{p:03d}",
                    "timestamp": _iso(at + timedelta(seconds=3)),
                    "message": {
                        "id": f"m{made}",
                        "model": "claude-opus-5-5",
                        "content": [{"type": "text", "text": "ok"}],
                        "stop_reason": "end_turn",
                        "usage": {"output_tokens": 7},
                    },
                },
            ]
            path = folder / f"{sid}.jsonl"
            path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in lines))
            os.utime(path, (at.timestamp() + 3, at.timestamp() + 3))
            made += 1


def measure(home: str, *, full: bool) -> None:
    """Child process: a cold then a warm board build; prints one JSON line."""
    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry
    from cargento.processes import StaticProcesses
    from cargento_harness_claude import plugin, transcript

    if full:
        transcript.MAX_COLD_SCAN_BYTES = 1 << 40
    registry = load_registry(entry_points=False, extra=[("claude", plugin)])
    builder = BoardBuilder(
        registry, env={"HOME": home}, home=Path(home), clock=lambda: NOW, processes=StaticProcesses()
    )
    out = {}
    for phase in ("cold", "warm"):
        started = time.perf_counter()
        board = builder.build()
        out[f"{phase}_s"] = round(time.perf_counter() - started, 3)
        out[f"{phase}_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        out["sessions"] = len(board.sessions)
    faults = [f.message for fs in registry.faults.values() for f in fs]
    out["faults"] = len(faults)
    print(json.dumps(out))


def _child(home: Path, *, full: bool = False) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--measure", str(home)] + (["--full"] if full else [])
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--keep", type=Path, default=None, help="generate here and keep it")
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.measure:
        measure(ns.measure, full=ns.full)
        return
    base = ns.keep or Path(tempfile.mkdtemp(prefix="cargento-claude-bench-"))
    try:
        big = base / "big-home"
        records = write_transcript(big / ".claude" / "projects" / "-w-big" / f"{SID}.jsonl", ns.mb)
        tree = base / "tree-home"
        write_tree(tree, ns.files)
        size = (big / ".claude" / "projects" / "-w-big" / f"{SID}.jsonl").stat().st_size
        print(f"transcript: {size / 1e6:.0f} MB, {records} records")
        print("  bounded cold read:", json.dumps(_child(big)))
        print("  full cold read:   ", json.dumps(_child(big, full=True)))
        print(f"projects tree: {ns.files} files, half inside the 24 h window")
        print("  board build:      ", json.dumps(_child(tree)))
        old = base / "old-tree-home"
        write_tree(old, ns.files, recent_every=400)
        print(f"projects tree: {ns.files} files, 1 in 400 inside the 24 h window")
        print("  board build:      ", json.dumps(_child(old)))
    finally:
        if ns.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
