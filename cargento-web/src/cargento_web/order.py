"""The board's stable order: a row moves only when its state changes or it enters or leaves.

Core sorts every build by state and then by the latest write, so five busy agents reshuffle the
Active group on every refresh and the row about to be clicked jumps. The live board publishes
the same sessions in an order that remembers when each row entered its state instead:

* groups by state, needs input first, then working, then idle (as core does);
* within needs input and working, rows keep the order in which they entered the state: the
  first to start waiting stays on top, and a newcomer joins at the end of its group;
* within idle (the Recent list) the most recent arrival comes first, so history still reads
  newest first, and the rows already there keep their order among themselves;
* rows that enter together (the first board, or several in one rebuild) keep core's order
  among themselves.

The order is kept on the server, per flavour of board, so every tab shows the same one.
"""

from __future__ import annotations

import attrs
from cargento.board import Board, BoardSession

__all__ = ["STATE_RANK", "StableOrder"]

#: The order of the state groups on the board.
STATE_RANK = {"needs_input": 0, "working": 1, "starting": 2, "idle": 3}


@attrs.frozen
class _Entry:
    state: str
    #: Which rebuild the row entered its state in, and its place in core's order then.
    batch: int
    place: int


class StableOrder:
    """Remembers when each row entered its state, and orders boards by it."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._batch = 0

    def apply(self, board: Board) -> Board:
        """*board* with its sessions in the stable order; rows no longer on it are forgotten,
        so a row that comes back enters anew."""
        self._batch += 1
        entries: dict[str, _Entry] = {}
        for place, session in enumerate(board.sessions):
            old = self._entries.get(session.key)
            if old is None or old.state != session.state:
                old = _Entry(session.state, self._batch, place)
            entries[session.key] = old
        self._entries = entries

        def rank(session: BoardSession) -> tuple[int, int, int]:
            entry = entries[session.key]
            batch = -entry.batch if session.state == "idle" else entry.batch
            return (STATE_RANK.get(session.state, len(STATE_RANK)), batch, entry.place)

        ordered = tuple(sorted(board.sessions, key=rank))
        if ordered == board.sessions:
            return board
        return attrs.evolve(board, sessions=ordered)
