"""Generating the maturity table (``docs/harnesses.md`` and the packaged ``maturity.json``).

A reading is ``verified`` for a harness when a recorded real store of it (``testdata/golden``,
read through the harness's plugin as of its snapshot) publishes that reading on the board and
the scenario's ``truth.json`` says the store holds it; ``absent`` when the harness declares
it does not record it; ``synthetic`` otherwise. Run from a checkout::

    python -m cargento.testing.maturity          # write both files
    python -m cargento.testing.maturity --check  # exit 1 when either differs

``cargento-core/tests/test_maturity.py`` regenerates both and compares them with the
committed ones, so the table cannot claim ``verified`` without a recorded store behind it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cargento.board import Board
from cargento.maturity import READINGS, Level
from cargento.models import HarnessInfo
from cargento.testing.golden import golden_board
from cargento.testing.homes import copy_golden
from cargento.testing.testdata import require_golden_root

__all__ = ["GOLDEN_HARNESS", "build_table", "claimed", "main", "published", "render_markdown"]

#: The harness id behind each recorded CLI's name in ``truth.json``.
GOLDEN_HARNESS = {
    "claude-code": "claude",
    "codex": "codex",
    "copilot": "copilot",
    "gemini-cli": "gemini",
    "opencode": "opencode",
    "pi": "pi",
}
#: The harnesses of this repository, in the board's order.
HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")


def published(board: Board) -> set[str]:
    """The readings any row of *board* publishes."""
    out: set[str] = set()
    for s in board.sessions:
        out |= {"found", "state"}
        if s.title:
            out.add("title")
        if s.model or any(a.model for a in s.subagents):
            out.add("model")
        if s.state == "needs_input":
            out.add("waits")
        if s.subagents:
            out.add("subagents")
        if s.tasks:
            out.add("tasks")
        if s.output_tokens_total is not None or s.output_tokens_per_min is not None:
            out.add("tokens")
        if s.cwd:
            out.add("cwd")
        if s.turn is not None and s.turn.eta_s is not None:
            out.add("eta")
    return out


def claimed(truth: Mapping[str, Any]) -> set[str]:
    """The readings a scenario's ``truth.json`` says its store holds."""
    out = {"found", "state"}
    if truth.get("expected_title"):
        out.add("title")
    if truth.get("model"):
        out.add("model")
    if truth.get("expected_state") == "needs_input":
        out.add("waits")
    if truth.get("subagents"):
        out.add("subagents")
    if truth.get("tasks"):
        out.add("tasks")
    if truth.get("output_tokens_total"):
        out.add("tokens")
    if truth.get("cwd"):
        out.add("cwd")
    return out


def _plugin(key: str) -> Any:
    return importlib.import_module(f"cargento_harness_{key}.plugin")


def recorded(golden: Path) -> dict[str, tuple[set[str], set[str]]]:
    """Per harness id: the readings verified on its recorded stores, and their CLI versions."""
    rows = json.loads((golden / "index.json").read_text())
    out: dict[str, tuple[set[str], set[str]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for n, row in enumerate(rows):
            key = GOLDEN_HARNESS[row["harness"]]
            home, truth = copy_golden(row["dir"], Path(scratch) / str(n))
            board = golden_board(_plugin(key), key, home, truth)
            readings, versions = out.setdefault(key, (set(), set()))
            readings |= published(board) & claimed(truth)
            versions.add(str(row["version"]))
    return out


def build_table(infos: Iterable[HarnessInfo], golden: Path) -> dict[str, Any]:
    """The table: per harness its label, its versions of record and a level per reading."""
    found = recorded(golden)
    harnesses: dict[str, Any] = {}
    for info in infos:
        verified, versions = found.get(info.key, (set(), set()))
        levels: dict[str, Level] = {}
        for reading in READINGS:
            if reading in info.absent_readings:
                if reading in verified:
                    raise ValueError(f"{info.key}: {reading} is declared absent but a recorded store publishes it")
                levels[reading] = "absent"
            else:
                levels[reading] = "verified" if reading in verified else "synthetic"
        harnesses[info.key] = {"label": info.label, "versions": sorted(versions), "readings": levels}
    return {"readings": list(READINGS), "harnesses": harnesses}


def render_json(table: Mapping[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=False) + "\n"


def render_markdown(table: Mapping[str, Any]) -> str:
    readings: list[str] = table["readings"]
    lines = [
        "# Harness maturity",
        "",
        "<!-- Generated by `python -m cargento.testing.maturity`; do not edit by hand. A test",
        "     regenerates it and fails when it differs. -->",
        "",
        "What each harness's readings rest on. **verified**: a store the real CLI wrote",
        "(`testdata/golden`, at the versions of record below) publishes the reading on the board,",
        "read through the harness's plugin, and the recording's `truth.json` says the store holds it.",
        "**synthetic**: implemented, and backed only by stores the test suite builds. **absent**:",
        "the harness does not record it, and a test checks that no board ever publishes it.",
        "The same data is in `cargento --diagnose --json` (each harness's `maturity`).",
        "",
        "| Harness | Versions of record | " + " | ".join(readings) + " |",
        "|---|---|" + "---|" * len(readings),
    ]
    for entry in table["harnesses"].values():
        versions = ", ".join(entry["versions"]) or "none recorded"
        cells = " | ".join(entry["readings"][r] for r in readings)
        lines.append(f"| {entry['label']} | {versions} | {cells} |")
    lines += [
        "",
        "Readings: **found** sessions are discovered; **title**; **model**; **state** (working,",
        "needs input, idle); **waits** (needs input); **subagents**; **tasks**; **tokens** (output",
        "rate or total); **cwd**; **eta** (the turn estimate: no recorded store has enough",
        "completed turns for one; its measured error is in `docs/turn-eta.md`).",
        "",
    ]
    return "\n".join(lines)


def infos() -> list[HarnessInfo]:
    """Every harness of this repository's :data:`HARNESSES` that is installed."""
    out = []
    for key in HARNESSES:
        try:
            out.append(_plugin(key).harness_info())
        except ImportError:
            continue
    return out


def paths(repo: Path) -> tuple[Path, Path]:
    return repo / "docs" / "harnesses.md", repo / "cargento-core" / "src" / "cargento" / "maturity.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cargento.testing.maturity")
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed file differs")
    args = parser.parse_args(argv)
    golden = require_golden_root()
    table = build_table(infos(), golden)
    markdown, data = paths(golden.parents[1])
    wanted = {markdown: render_markdown(table), data: render_json(table)}
    stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
    if args.check:
        for p in stale:
            print(f"{p} is out of date: run python -m cargento.testing.maturity", file=sys.stderr)
        return 1 if stale else 0
    for p, text in wanted.items():
        p.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
