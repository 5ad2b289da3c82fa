"""The board-wide passes, paid per harness whose rows changed rather than per row on the board.

After each harness's rows are derived, the board as a whole is: the display window, the
widened display ids, the order, the counts, the strip's per-harness counts and the content
hash. Every one of them is a function of one harness's rows at a time (display ids widen only
between rows of the same harness and project, and the order is a stable sort whose ties keep
harness order), so :class:`BoardAssembly` keeps each harness's share of them
(:class:`HarnessShare`) and works a share out again only when that harness hands over
different rows (a new tuple: the builder hands the very same tuple for a harness whose rows
stood) or when the clock moves an idle row out of the window. Within a share worked out again,
a row object seen in the previous share keeps its sort key and content digest.

What is left per build over the whole board is C-level: joining the shares, one sort of row
indices on integer keys (each share is already a sorted run) and the hash of the digests.
The result is exactly what the passes over every row made: the same rows, in the same order,
with the same counts and hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from cargento.board.document import BoardSession, Counts
from cargento.board.identity import widen_display_ids
from cargento.board.revision import session_content
from cargento.board.state import board_order
from cargento.board.window import in_window

__all__ = ["Assembled", "BoardAssembly", "HarnessShare", "order_key"]

#: A state's place in the order, scaled past any timestamp in microseconds (year 33658).
_RANK_SCALE = 10**18
#: The counts one share adds: working, needs input, idle, starting, subagents running, subagents.
_ShareCounts = tuple[int, int, int, int, int, int]


def order_key(session: BoardSession) -> int:
    """:func:`cargento.board.state.board_order` as one integer that sorts the same way: the
    state's rank, then the most recently active first (the timestamp in whole microseconds,
    which keeps every distinct timestamp's order and every tie)."""
    rank, minus_last = board_order(session)
    return rank * _RANK_SCALE + round(minus_last * 1_000_000)


@attrs.frozen(kw_only=True)
class HarnessShare:
    """One harness's part of the board, worked out from the rows it handed over."""

    #: The rows the harness handed over (compared by identity).
    source: tuple[BoardSession, ...]
    all_sessions: bool
    window_hours: float
    #: The moment it was worked out at, and the first moment a shown idle row leaves the
    #: window (``None``: no shown row ever does); it stands from ``at`` until then.
    at: datetime
    until: datetime | None
    #: The rows shown, display ids widened, in the board's order, with their sort keys and
    #: content digests.
    shown: tuple[BoardSession, ...]
    keys: tuple[int, ...]
    digests: tuple[int, ...]
    counts: _ShareCounts
    #: Rows shown per harness key (a harness hands over only its own rows, but the strip
    #: counts what the rows say).
    per_harness: dict[str, int]
    #: The rows whose display id was widened: the object handed over, and the widened one
    #: (kept, so a row that stood stays the same object), by the first one's id.
    widened: dict[int, tuple[BoardSession, BoardSession]] = attrs.field(factory=dict)

    def stands(
        self, source: tuple[BoardSession, ...], moment: datetime, window_hours: float, all_sessions: bool
    ) -> bool:
        """Would working it out again for *source* at *moment* give this very share?"""
        return (
            source is self.source
            and all_sessions == self.all_sessions
            and window_hours == self.window_hours
            and self.at <= moment
            and (self.until is None or moment < self.until)
        )


@attrs.frozen(kw_only=True)
class Assembled:
    """The board-wide result of one build."""

    sessions: tuple[BoardSession, ...]
    counts: Counts
    #: Rows shown per harness key (the strip's counts).
    per_harness: dict[str, int]
    #: The rows' content digests, in board order (the content hash's row part).
    digests: tuple[int, ...]


@attrs.frozen
class _Known:
    """A row object met in a share, and what was worked out for it."""

    row: BoardSession
    key: int
    digest: int


class BoardAssembly:
    """The board-wide passes across builds, keeping every harness's share (see module doc)."""

    def __init__(self) -> None:
        self._shares: dict[str, HarnessShare] = {}
        #: Shares worked out and rows given a key and digest, since the start (tests).
        self.shares_made = 0
        self.rows_digested = 0

    def assemble(
        self,
        rows: Sequence[tuple[str, tuple[BoardSession, ...]]],
        moment: datetime,
        *,
        window_hours: float,
        all_sessions: bool,
    ) -> Assembled:
        """The board of every harness's *rows* (harness key, its rows), in harness order."""
        shares: dict[str, HarnessShare] = {}
        for key, source in rows:
            share = self._shares.get(key)
            if share is None or not share.stands(source, moment, window_hours, all_sessions):
                share = self._share(source, share, moment, window_hours, all_sessions)
            shares[key] = share
        self._shares = shares
        shown: list[BoardSession] = []
        keys: list[int] = []
        digests: list[int] = []
        totals = [0, 0, 0, 0, 0, 0]
        per_harness: dict[str, int] = {}
        for share in shares.values():
            shown += share.shown
            keys += share.keys
            digests += share.digests
            for i, n in enumerate(share.counts):
                totals[i] += n
            for harness, n in share.per_harness.items():
                per_harness[harness] = per_harness.get(harness, 0) + n
        # Each share is a sorted run, so this stable sort is a merge of them; ties keep the
        # harness order, then each harness's own, as the one sort over every row did.
        order = sorted(range(len(keys)), key=keys.__getitem__)
        working, needs_input, idle, starting, running, subagents = totals
        return Assembled(
            sessions=tuple(map(shown.__getitem__, order)),
            counts=Counts(
                sessions=len(shown),
                working=working,
                needs_input=needs_input,
                idle=idle,
                starting=starting,
                subagents_running=running,
                subagents=subagents,
            ),
            per_harness=per_harness,
            digests=tuple(map(digests.__getitem__, order)),
        )

    def _share(
        self,
        source: tuple[BoardSession, ...],
        prior: HarnessShare | None,
        moment: datetime,
        window_hours: float,
        all_sessions: bool,
    ) -> HarnessShare:
        self.shares_made += 1
        kept: list[BoardSession]
        until: datetime | None = None
        if all_sessions:
            kept = list(source)
        else:
            limit = window_hours * 3600.0
            kept = []
            for s in source:
                inside, leaves = in_window(s, moment, limit)
                if inside:
                    kept.append(s)
                if leaves is not None and (until is None or leaves < until):
                    until = leaves
        widened: dict[int, tuple[BoardSession, BoardSession]] = {}
        shown = _widen(kept, prior.widened if prior is not None else {}, widened)
        known: dict[int, _Known] = {}
        if prior is not None:
            known = {id(r): _Known(r, k, d) for r, k, d in zip(prior.shown, prior.keys, prior.digests, strict=True)}
        made: list[tuple[int, int, BoardSession]] = []
        working = needs_input = idle = starting = running = subagents = 0
        per_harness: dict[str, int] = {}
        for s in shown:
            per_harness[s.harness] = per_harness.get(s.harness, 0) + 1
            hit = known.get(id(s))
            if hit is None or hit.row is not s:
                self.rows_digested += 1
                hit = _Known(s, order_key(s), hash(session_content(s)))
            made.append((hit.key, hit.digest, s))
            state = s.state
            if state == "working":
                working += 1
            elif state == "needs_input":
                needs_input += 1
            elif state == "idle":
                idle += 1
            elif state == "starting":
                starting += 1
            if s.subagents:
                subagents += len(s.subagents)
                running += sum(a.running for a in s.subagents)
        made.sort(key=lambda m: m[0])
        return HarnessShare(
            source=source,
            all_sessions=all_sessions,
            window_hours=window_hours,
            at=moment,
            until=until,
            shown=tuple(m[2] for m in made),
            keys=tuple(m[0] for m in made),
            digests=tuple(m[1] for m in made),
            counts=(working, needs_input, idle, starting, running, subagents),
            per_harness=per_harness,
            widened=widened,
        )


def _widen(
    kept: list[BoardSession],
    before: dict[int, tuple[BoardSession, BoardSession]],
    now: dict[int, tuple[BoardSession, BoardSession]],
) -> list[BoardSession]:
    """*kept* with colliding display ids widened; a row widened *before* the same way is the
    object made then. Fills *now* with this time's widened rows."""
    widened = widen_display_ids(kept)
    out: list[BoardSession] = []
    for row, wide in zip(kept, widened, strict=True):
        if wide is not row:
            prior = before.get(id(row))
            if prior is not None and prior[0] is row and prior[1].display_id == wide.display_id:
                wide = prior[1]
            now[id(row)] = (row, wide)
        out.append(wide)
    return out
