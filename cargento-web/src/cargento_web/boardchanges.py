"""What moved between two boards, so a per-board pass can look at the rows that changed only.

The builder hands on the very row object for a row that did not change (and the hub's marks
keep that), so the rows of a board that are not on the previous one are exactly the rows that
changed, came or went. :class:`ChangeTracker` works that out once per board from object ids
(C-level over every row: no Python work per unchanged row) and keeps an index of the rows by
``(harness, session id)`` up to date from the changed rows alone.

A pass that keeps state across boards must still look at every row when :attr:`BoardChanges.full`
says so: the first board, and a board following one of the other flavour (the display window
and ``?all=1`` are built by separate builders and alternate when both are streamed).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from operator import is_not

import attrs
from cargento.board import Board, BoardSession

__all__ = ["BoardChanges", "ChangeTracker", "RowKey", "difference", "row_key"]

#: A row's ``(harness, session id)``.
RowKey = tuple[str, str]


def row_key(s: BoardSession) -> RowKey:
    return (s.harness, s.session_id)


@attrs.frozen(kw_only=True)
class BoardChanges:
    """One board, and what moved since the board before it."""

    board: Board
    #: Look at every row: there is no previous board of this flavour right before this one.
    full: bool
    #: The rows not on the previous board (changed or new), in board order; every row when
    #: :attr:`full`.
    changed: tuple[BoardSession, ...]
    #: The previous board's rows not on this one (changed or gone); ``()`` when :attr:`full`.
    dropped: tuple[BoardSession, ...]
    #: The set of ``(harness, session id)`` on the board moved (always true when :attr:`full`).
    keys_moved: bool
    #: Every row of the board by ``(harness, session id)``.
    rows: Mapping[RowKey, BoardSession]
    #: How many rows of the board are in each state.
    states: Mapping[str, int]


class ChangeTracker:
    """The changes of each board handed to :meth:`see`, against the board seen before it."""

    def __init__(self) -> None:
        self._last: BoardChanges | None = None
        self._lock = threading.Lock()
        #: Rows looked at one by one (changed rows, or every row of a full board), for tests.
        self.rows_examined = 0

    def see(self, board: Board) -> BoardChanges:
        """The changes of *board* (the same answer again for the board last seen)."""
        with self._lock:
            return self._see(board)

    def _see(self, board: Board) -> BoardChanges:
        last = self._last
        if last is not None and last.board is board:
            return last
        sessions = board.sessions
        if last is None or last.board.all != board.all:
            self.rows_examined += len(sessions)
            found = BoardChanges(
                board=board,
                full=True,
                changed=sessions,
                dropped=(),
                keys_moved=True,
                rows={row_key(s): s for s in sessions},
                states=_states(sessions),
            )
        else:
            came, went = difference(sessions, last.board.sessions)
            changed = tuple(s for _, s in came)
            dropped = tuple(went)
            self.rows_examined += len(changed) + len(dropped)
            rows = dict(last.rows)
            for s in dropped:
                if rows.get(row_key(s)) is s:
                    del rows[row_key(s)]
            for s in changed:
                rows[row_key(s)] = s
            states = dict(last.states)
            for s in dropped:
                states[s.state] -= 1
            for s in changed:
                states[s.state] = states.get(s.state, 0) + 1
            found = BoardChanges(
                board=board,
                full=False,
                changed=changed,
                dropped=dropped,
                keys_moved={row_key(s) for s in changed} != {row_key(s) for s in dropped},
                rows=rows,
                states={k: n for k, n in states.items() if n},
            )
        self._last = found
        return found


def difference(
    rows: Sequence[BoardSession], before: Sequence[BoardSession]
) -> tuple[list[tuple[int, BoardSession]], list[BoardSession]]:
    """The row objects of *rows* that are not in *before* (with their index in *rows*, in
    order) and those of *before* not in *rows*: C-level over every row, Python work for the
    rows that differ only. A row that only moved is in neither."""
    n = len(rows)
    if n == len(before):
        # Where the same object stands at the same place, nothing moved; a row that moved
        # shifts the places in between, so it is found at a differing place on both sides.
        places = list(compress(range(n), map(is_not, rows, before)))
        if len(places) * 8 <= n:
            old = {id(before[i]) for i in places}
            new = {id(rows[i]) for i in places}
            return (
                [(i, rows[i]) for i in places if id(rows[i]) not in old],
                [before[i] for i in places if id(before[i]) not in new],
            )
    ids = dict(zip(map(id, rows), range(n), strict=True))
    prior = dict(zip(map(id, before), before, strict=True))
    came = sorted(ids[x] for x in ids.keys() - prior.keys())
    return [(i, rows[i]) for i in came], [prior[x] for x in prior.keys() - ids.keys()]


def _states(sessions: Iterable[BoardSession]) -> dict[str, int]:
    found: dict[str, int] = {}
    for s in sessions:
        found[s.state] = found.get(s.state, 0) + 1
    return found
