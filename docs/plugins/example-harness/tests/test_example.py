from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import cargento_harness_example.plugin as plugin
from cargento.board import BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing import HarnessContract
from cargento.testing.homes import write_jsonl

NOW = datetime(2026, 11, 30, 10, 5, tzinfo=UTC)


def write_session(home: Path, sid: str, *, ended: bool) -> Path:
    records = [
        {"type": "start", "cwd": "/w/acme/api", "at": "2026-11-30T10:00:00Z"},
        {"type": "prompt", "text": "Add a retry to the fetcher", "at": "2026-11-30T10:00:01Z"},
        {"type": "tool", "name": "bash", "at": "2026-11-30T10:00:30Z"},
        {"type": "reply", "model": "toy-1", "output_tokens": 120, "at": "2026-11-30T10:04:50Z"},
    ]
    if ended:
        records.append({"type": "turn_end", "at": "2026-11-30T10:04:55Z"})
    return write_jsonl(home / ".example-agent" / "sessions" / f"{sid}.jsonl", records)


class TestExampleContract(HarnessContract):
    plugin = plugin
    key = "example"
    now = NOW

    def make_home(self, home: Path) -> Mapping[str, str]:
        write_session(home, "s1", ended=False)
        return {}


def test_a_recorded_turn_end_reads_idle_at_once(tmp_path: Path) -> None:
    write_session(tmp_path, "open", ended=False)
    write_session(tmp_path, "done", ended=True)
    reg = load_registry(entry_points=False, extra=[("example", plugin)])
    board = BoardBuilder(
        reg, env={"HOME": str(tmp_path)}, home=tmp_path, clock=lambda: NOW, processes=StaticProcesses()
    ).build()
    states = {s.session_id: (s.state, s.project, s.model, s.output_tokens_per_min) for s in board.sessions}
    assert states == {"open": ("working", "acme/api", "toy-1", 12.0), "done": ("idle", "acme/api", "toy-1", 12.0)}
