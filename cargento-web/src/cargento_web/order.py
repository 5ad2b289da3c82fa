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

import bisect
import operator

import attrs
from cargento.board import Board, BoardSession
from cargento.sharedmethods import shared_methods

from cargento_web.boardchanges import BoardChanges, difference

__all__ = ["STATE_RANK", "StableOrder"]

#: The order of the state groups on the board.
STATE_RANK = {"needs_input": 0, "working": 1, "starting": 2, "idle": 3}


@shared_methods
@attrs.frozen(repr=False, eq=False)
class _Entry:
    state: str
    #: Which rebuild the row entered its state in, and its place in core's order then.
    batch: int
    place: int


class StableOrder:
    """Remembers when each row entered its state, and orders boards by it.

    Rows that are the same objects as on the previous board keep their entry and their place
    among themselves, so a board where few rows changed is ordered by placing those rows
    alone (the order is total: no two rows share a rank)."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self._batch = 0
        #: The previous board's rows (as handed in), and its published order: the rows and,
        #: place by place, their ranks.
        self._input: tuple[BoardSession, ...] = ()
        self._input_ids: set[int] | None = None
        self._rows: list[BoardSession] = []
        self._ranks: list[tuple[int, int, int]] = []
        #: Rows placed one by one, and orders indexed row by row to find the rows that went
        #: (never, while every row's rank finds it), since the start (tests).
        self.rows_placed = 0
        self.indexed = 0

    def _rank(self, session: BoardSession, entry: _Entry) -> tuple[int, int, int]:
        batch = -entry.batch if session.state == "idle" else entry.batch
        return (STATE_RANK.get(session.state, len(STATE_RANK)), batch, entry.place)

    def apply(self, board: Board, changes: BoardChanges | None = None) -> Board:
        """*board* with its sessions in the stable order; rows no longer on it are forgotten,
        so a row that comes back enters anew. *changes*, what moved on *board* since the board
        before it, saves finding that again when that board was this order's last."""
        self._batch += 1
        sessions = board.sessions
        if changes is not None and self._input and not changes.full and changes.before is self._input:
            came, went = list(zip(changes.places, changes.changed, strict=True)), list(changes.dropped)
            self._input_ids = None
        else:
            came, went, self._input_ids = (
                difference(sessions, self._input, self._input_ids) if self._input else ([], [], set(map(id, sessions)))
            )
        if not self._input or 4 * len(came) > len(sessions):
            self._order_all(sessions)
        else:
            self._order_changed(came, went)
        self._input = sessions
        ordered = tuple(self._rows)
        if len(ordered) == len(sessions) and all(map(operator.is_, ordered, sessions)):
            return board  # the very rows in core's order (compared by value, 640 rows cost 0.2 ms)
        return attrs.evolve(board, sessions=ordered)

    def _order_all(self, sessions: tuple[BoardSession, ...]) -> None:
        self.rows_placed += len(sessions)
        entries: dict[str, _Entry] = {}
        for place, session in enumerate(sessions):
            old = self._entries.get(session.key)
            if old is None or old.state != session.state:
                old = _Entry(session.state, self._batch, place)
            entries[session.key] = old
        self._entries = entries
        ranked = sorted(((self._rank(s, entries[s.key]), s) for s in sessions), key=lambda pair: pair[0])
        self._ranks = [k for k, _ in ranked]
        self._rows = [r for _, r in ranked]

    def _order_changed(self, came: list[tuple[int, BoardSession]], went: list[BoardSession]) -> None:
        """The previous order with the rows that left taken out, a changed row whose entry
        stood put in its old row's place, and the rest placed by their rank (*came*: the new
        row objects with their place in core's order; *went*: the old ones not on it)."""
        before = {s.key: s for s in went}
        entries = self._entries
        rows, ranks = self._rows, self._ranks
        # Where each row that went stands: found by its rank (the order is total, and a row's
        # rank is the one it was placed with), not from an index of every row.
        at: dict[int, int] = {}
        for s in went:
            entry = entries.get(s.key)
            i = -1 if entry is None else bisect.bisect_left(ranks, self._rank(s, entry))
            if not 0 <= i < len(rows) or rows[i] is not s:
                self.indexed += 1
                at = dict(zip(map(id, rows), range(len(rows)), strict=True))
                break
            at[id(s)] = i
        placed: list[tuple[tuple[int, int, int], BoardSession]] = []
        fresh_keys: set[str] = set()
        out: list[int] = []
        for place, s in came:
            self.rows_placed += 1
            fresh_keys.add(s.key)
            old = entries.get(s.key)
            prior = before.get(s.key)
            if old is not None and old.state == s.state and prior is not None:
                rows[at[id(prior)]] = s  # the same rank: its old row's place
                continue
            if prior is not None:
                out.append(at[id(prior)])
            entry = entries[s.key] = _Entry(s.state, self._batch, place)
            placed.append((self._rank(s, entry), s))
        for key in before.keys() - fresh_keys:
            entries.pop(key, None)
            out.append(at[id(before[key])])
        for i in sorted(out, reverse=True):
            del rows[i]
            del ranks[i]
        for rank, s in placed:
            i = bisect.bisect(ranks, rank)
            ranks.insert(i, rank)
            rows.insert(i, s)
