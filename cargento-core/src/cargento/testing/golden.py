"""Reading a golden store (one the real CLI wrote) through the whole board, as of its snapshot.

::

    home, truth = golden("copilot-1.0.102/A-single-turn")     # the pytest fixture
    board = golden_board(plugin, "copilot", home, truth)
    assert [s.session_id for s in board.sessions] == truth["session_ids"]
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento.board import Board, BoardBuilder
from cargento.plugins import load_registry
from cargento.processes import ProcessTable, StaticProcesses
from cargento.testing.demo import board_at
from cargento.testing.homes import make_context

__all__ = ["golden_board", "snapshot_moment"]


def snapshot_moment(truth: Mapping[str, Any]) -> datetime:
    """The moment a golden scenario was captured (its ``truth["snapshot_at"]``, epoch seconds)."""
    return datetime.fromtimestamp(float(truth["snapshot_at"]), UTC)


def golden_board(
    plugin: Any, key: str, home: Path, truth: Mapping[str, Any], *, processes: ProcessTable | None = None
) -> Board:
    """The whole board (history included) over the golden *home* as of its snapshot moment, with
    only *plugin* registered under *key*, the clean environment of
    :func:`~cargento.testing.homes.make_context` (``HOME`` and the XDG data and config folders
    in *home*) and an empty process table unless *processes* is given. The test fails on any
    harness fault recorded while building it: a real store must read cleanly."""
    moment = snapshot_moment(truth)
    env = dict(make_context(home, now=moment).env)
    registry = load_registry(entry_points=False, extra=[(key, plugin)])
    builder = BoardBuilder(
        registry,
        env=env,
        home=home,
        clock=lambda: moment,
        processes=processes if processes is not None else StaticProcesses(),
    )
    return board_at(builder, moment)
