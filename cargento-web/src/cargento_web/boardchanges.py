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
from cargento.sharedmethods import shared_methods

__all__ = ["BoardChanges", "ChangeTracker", "RowKey", "difference", "row_key"]

#: A row's ``(harness, session id)``.
RowKey = tuple[str, str]


def row_key(s: BoardSession) -> RowKey:
    return (s.harness, s.session_id)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
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
    #: The rows of the board compared with (``()`` when :attr:`full`), and the place of
    #: each changed row on this board.
    before: tuple[BoardSession, ...] = ()
    places: tuple[int, ...] = ()


class ChangeTracker:
    """The changes of each board handed to :meth:`see`, against the board seen before it."""

    def __init__(self) -> None:
        self._last: BoardChanges | None = None
        self._lock = threading.Lock()
        #: The ids of the last board's rows, when they were worked out.
        self._ids: set[int] | None = None
        #: Rows looked at one by one (changed rows, or every row of a full board), for tests.
        self.rows_examined = 0

    def see(self, board: Board) -> BoardChanges:
        """The changes of *board* (the same answer again for the board last seen)."""
        with self._lock:
            return self._see(board)

    def peek(self, board: Board) -> BoardChanges | None:
        """The changes of *board* when it is the board last seen (or its rows under a new
        revision stamp), else ``None``; never works anything out."""
        with self._lock:
            last = self._last
            if last is not None and last.board.sessions is board.sessions and last.board.all == board.all:
                return last
            return None

    def _see(self, board: Board) -> BoardChanges:
        last = self._last
        if last is not None and (
            last.board is board or (last.board.sessions is board.sessions and last.board.all == board.all)
        ):
            # The same board, or the same rows under a new revision stamp.
            return last
        sessions = board.sessions
        if last is None or last.board.all != board.all:
            self._ids = set(map(id, sessions))
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
            came, went, self._ids = difference(sessions, last.board.sessions, self._ids)
            changed = tuple(s for _, s in came)
            places = tuple(i for i, _ in came)
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
                before=last.board.sessions,
                places=places,
            )
        self._last = found
        return found


def difference(
    rows: Sequence[BoardSession], before: Sequence[BoardSession], before_ids: set[int] | None = None
) -> tuple[list[tuple[int, BoardSession]], list[BoardSession], set[int] | None]:
    """The row objects of *rows* that are not in *before* (with their index in *rows*, in
    order), those of *before* not in *rows*, and the ids of *rows* when they were worked out
    (hand them back as *before_ids* next time; ``None``: not needed). A row that only moved is
    in neither; no row object is in either sequence twice (a board's rows).

    When the boards are as long, only the places whose row is not the very row it was are
    looked at (C-level over every place, Python work for those places alone): a row not in
    *before* is at such a place, and so is, in *before*, a row that moved. Otherwise it is
    C-level over every row (sets of object ids, and selectors over them); Python work for the
    rows that came or went only."""
    if len(rows) == len(before):
        places = list(compress(range(len(rows)), map(is_not, rows, before)))
        if not places:
            return [], [], None
        new_ids = {id(rows[i]) for i in places}
        old_ids = {id(before[i]) for i in places}
        return (
            [(i, rows[i]) for i in places if id(rows[i]) not in old_ids],
            [before[i] for i in places if id(before[i]) not in new_ids],
            None,
        )
    ids = set(map(id, rows))
    prior = before_ids if before_ids is not None else set(map(id, before))
    came_ids = ids - prior
    went_ids = prior - ids
    came: list[tuple[int, BoardSession]] = []
    went: list[BoardSession] = []
    if came_ids:
        chosen = list(map(came_ids.__contains__, map(id, rows)))
        came = list(zip(compress(range(len(rows)), chosen), compress(rows, chosen), strict=True))
    if went_ids:
        went = list(compress(before, map(went_ids.__contains__, map(id, before))))
    return came, went, ids


def _states(sessions: Iterable[BoardSession]) -> dict[str, int]:
    found: dict[str, int] = {}
    for s in sessions:
        found[s.state] = found.get(s.state, 0) + 1
    return found
