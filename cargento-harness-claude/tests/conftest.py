"""Shared fixtures: a fake home with a Claude store builder, and ways to read it back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.board import Board, BoardBuilder
from cargento.models import Gate, ModelInfo, SessionReading, Usage
from cargento.plugins import load_registry
from cargento.processes import ProcessTable, StaticProcesses
from cargento.testing import make_context
from cargento_harness_claude import plugin
from cargento_harness_claude.fixtures import ClaudeStore

pytest_plugins = ["cargento.testing.fixtures"]

#: A fixed "now" for hand-built stores.
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T0 = NOW.timestamp()


class Read:
    """One session read through every hook, as core would."""

    def __init__(
        self, reading: SessionReading, gate: Gate | None, model: ModelInfo | None, usage: Usage | None
    ) -> None:
        self.reading = reading
        self.gate = gate
        self.model = model
        self.usage = usage


def read_all(
    home: Path,
    *,
    now: datetime | float = NOW,
    env: dict[str, str] | None = None,
    processes: ProcessTable | None = None,
    window_s: float | None = None,
    ctx: Any = None,
) -> dict[str, Read]:
    ctx = ctx or make_context(home, env=env, now=now, window_s=window_s, processes=processes or StaticProcesses())
    found = plugin.discover(ctx=ctx)
    out = {}
    for ref in found.sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is None:
            continue
        out[ref.session_id] = Read(
            reading,
            plugin.gate_state(reading=reading, ctx=ctx),
            plugin.model(reading=reading, ctx=ctx),
            plugin.usage(reading=reading, ctx=ctx),
        )
    return out


def board(
    home: Path, *, now: datetime | float = NOW, processes: ProcessTable | None = None, env: dict[str, str] | None = None
) -> Board:
    moment = now if isinstance(now, datetime) else datetime.fromtimestamp(now, UTC)
    full = {"HOME": str(home)}
    full.update(env or {})
    registry = load_registry(entry_points=False, extra=[("claude", plugin)])
    builder = BoardBuilder(
        registry, env=full, home=home, clock=lambda: moment, processes=processes or StaticProcesses()
    )
    return builder.build(all_sessions=True)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def store(home: Path) -> ClaudeStore:
    return ClaudeStore(home)


@pytest.fixture(name="read_all")
def read_all_fixture() -> Callable[..., dict[str, Read]]:
    """Read every session of a home through all the hooks."""
    return read_all


@pytest.fixture(name="board")
def board_fixture() -> Callable[..., Board]:
    """Build the whole board over a home with this plugin alone."""
    return board
