"""The board: every harness aggregated into one snapshot, shared by the CLI and the web app.

Core derives everything that must be the same for every harness here, from the facts the
plugins read. One concept per module:

- :mod:`~cargento.board.document` — the published records (:class:`Board` and its parts) and
  :func:`board_json`;
- :mod:`~cargento.board.builder` — :class:`BoardBuilder`, the pass over every harness;
- :mod:`~cargento.board.discovery` — the read pass over one harness's sessions and its caches;
- :mod:`~cargento.board.window` — the display window;
- :mod:`~cargento.board.assembly` — the board-wide passes, kept per harness across builds;
- :mod:`~cargento.board.folding` — children folded onto parents;
- :mod:`~cargento.board.state` — the state and its precedence, live-event :class:`Overlay`;
- :mod:`~cargento.board.detail` — the detail line and :func:`ago`;
- :mod:`~cargento.board.derivation` — one folded session becomes its row;
- :mod:`~cargento.board.liveness` — the process table's word on a harness's rows;
- :mod:`~cargento.board.starting` — the row of a running harness process with no store yet;
- :mod:`~cargento.board.identity` — identity, project label and display ids;
- :mod:`~cargento.board.strip` — the harness strip;
- :mod:`~cargento.board.redaction` — :func:`redact_board`;
- :mod:`~cargento.board.revision` — the revision, which moves only with the content;
- :mod:`~cargento.board.context` — the home directory and platform hooks are told.

Every name below is importable from ``cargento.board`` itself.
"""

from __future__ import annotations

from cargento.board.builder import BoardBuilder
from cargento.board.context import default_home
from cargento.board.detail import ago
from cargento.board.discovery import DERIVED_REUSE_S
from cargento.board.document import (
    SCHEMA,
    Board,
    BoardHarness,
    BoardPlugin,
    BoardSession,
    BoardTask,
    BoardTurn,
    Counts,
    State,
    Waiting,
    board_json,
)
from cargento.board.redaction import redact_board
from cargento.board.state import WORKING_WINDOW_S, Overlay

__all__ = [
    "DERIVED_REUSE_S",
    "SCHEMA",
    "WORKING_WINDOW_S",
    "Board",
    "BoardBuilder",
    "BoardHarness",
    "BoardPlugin",
    "BoardSession",
    "BoardTask",
    "BoardTurn",
    "Counts",
    "Overlay",
    "State",
    "Waiting",
    "ago",
    "board_json",
    "default_home",
    "redact_board",
]
