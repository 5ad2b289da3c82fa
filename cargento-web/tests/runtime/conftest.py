from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import Board, BoardSession, Waiting
from cargento.models import Subagent
from cargento.testing.boards import board_of as make_board
from cargento.testing.boards import board_row
from cargento_web.runtime.hub import EventHub
from cargento_web.runtime.notifiers import MemoryNotifier

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class Clock:
    """A hand-moved clock for the hub."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def notifier() -> MemoryNotifier:
    return MemoryNotifier()


@pytest.fixture
def make_hub(tmp_path: Path, clock: Clock, notifier: MemoryNotifier) -> Iterator[Callable[..., EventHub]]:
    hubs: list[EventHub] = []

    def make(**kwargs: object) -> EventHub:
        # The confirmation delay is its own subject (test_precision.py); elsewhere a gate
        # that opens is confirmed at once, so each test reads the rule it is about.
        options: dict[str, object] = {
            "clock": clock,
            "state_dir": tmp_path / "state",
            "notifier": notifier,
            "confirm": timedelta(0),
        }
        options.update(kwargs)
        hub = EventHub(**options)  # type: ignore[arg-type]
        hubs.append(hub)
        return hub

    yield make
    for hub in hubs:
        hub.close()


def session(
    sid: str,
    *,
    harness: str = "claude",
    state: str = "idle",
    last_active_at: datetime | None = None,
    waiting: Waiting | None = None,
    subagents: tuple[Subagent, ...] = (),
    state_source: str = "store",
) -> BoardSession:
    """A board row as core would publish it, with only what the hub reads set (every other
    field empty, whatever fields core's row carries today)."""
    return board_row(
        sid,
        harness=harness,
        state=state,
        waiting=waiting,
        subagents=subagents,
        last_active_at=last_active_at,
        state_source=state_source,
    )


def board(now: datetime, *sessions: BoardSession) -> Board:
    return make_board(now, *sessions)


@pytest.fixture
def row() -> Callable[..., BoardSession]:
    """Make a board row (see :func:`session`)."""
    return session


@pytest.fixture
def board_of() -> Callable[..., Board]:
    """Make a board of rows (see :func:`board`)."""
    return board


@pytest.fixture
def t0() -> datetime:
    return T0
