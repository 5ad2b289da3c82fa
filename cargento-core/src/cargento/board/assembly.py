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

A share whose harness handed over the same rows but for a few, each the same session as the row
in its place (an event re-derived one row, or an append re-read one session), is patched
rather than worked out again (:meth:`BoardAssembly._patched`): the rows that stood are neither
looked at nor copied one by one, the new rows take their predecessors' places in the order, the
window and the display ids, and the counts move by what they changed. Where a patch could
order, widen or window differently from the passes over every row (a row entering or leaving
the window, a session arriving or leaving, a tie in the order), the share is worked out again.

The board's own order is kept the same way: when every share stood or was patched, the rows a
patch replaced move in the board's ordered rows too (each found by its key, put in by
bisection), so a build after one append touches neither the other harnesses' rows nor their
order; otherwise what is left over the whole board is C-level: joining the shares, one sort
of row indices on integer keys (each share is already a sorted run) and the hash of the
digests. The result is exactly what the passes over every row made: the same rows, in the
same order, with the same counts and hash.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Sequence
from datetime import datetime
from itertools import compress
from typing import NamedTuple

import attrs

from cargento.board.document import BoardSession, Counts
from cargento.board.identity import widen_display_ids
from cargento.board.revision import session_content
from cargento.board.state import board_order
from cargento.board.window import in_window
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

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


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
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


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Assembled:
    """The board-wide result of one build."""

    sessions: tuple[BoardSession, ...]
    counts: Counts
    #: Rows shown per harness key (the strip's counts).
    per_harness: dict[str, int]
    #: The rows' content digests, in board order (the content hash's row part).
    digests: tuple[int, ...]


@shared_repr
@attrs.frozen(repr=False, eq=False)
class _Known:
    """A row object met in a share, and what was worked out for it."""

    row: BoardSession
    key: int
    digest: int


class _Move(NamedTuple):
    """One row a patch replaced: the row shown before and its key, the row shown now, its key
    and its digest."""

    old: BoardSession
    old_key: int
    new: BoardSession
    new_key: int
    new_digest: int


@shared_repr
@attrs.define(repr=False, eq=False)
class _Merged:
    """The board's ordered rows, their keys and digests, as the last build left them."""

    shown: list[BoardSession]
    keys: list[int]
    digests: list[int]


class BoardAssembly:
    """The board-wide passes across builds, keeping every harness's share (see module doc)."""

    def __init__(self) -> None:
        self._shares: dict[str, HarnessShare] = {}
        #: The board's order as ``_shares`` make it (``None`` until the first build).
        self._merged: _Merged | None = None
        #: Shares worked out (or patched) and rows given a key and digest, since the start;
        #: of those shares, the ones patched (tests).
        self.shares_made = 0
        self.rows_digested = 0
        self.shares_patched = 0
        #: Builds whose order was patched rather than merged again (tests).
        self.orders_patched = 0

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
        moves: list[_Move] = []
        # The order can be patched while every share is the one it was or one patched from it.
        patchable = self._merged is not None
        for key, source in rows:
            share = self._shares.get(key)
            if share is None:
                patchable = False
            if share is None or not share.stands(source, moment, window_hours, all_sessions):
                patched = None
                if share is not None:
                    patched = self._patched(source, share, moment, window_hours, all_sessions, moves)
                if patched is None:
                    patchable = False
                share = patched or self._share(source, share, moment, window_hours, all_sessions)
            shares[key] = share
        merged = self._merged if patchable and list(shares) == list(self._shares) else None
        self._shares = shares
        if merged is None or not self._move(merged, moves):
            merged = self._merged = self._merge(shares)
        elif moves:
            self.orders_patched += 1
        totals = [0, 0, 0, 0, 0, 0]
        per_harness: dict[str, int] = {}
        for share in shares.values():
            for i, n in enumerate(share.counts):
                totals[i] += n
            for harness, n in share.per_harness.items():
                per_harness[harness] = per_harness.get(harness, 0) + n
        working, needs_input, idle, starting, running, subagents = totals
        return Assembled(
            sessions=tuple(merged.shown),
            counts=Counts(
                sessions=len(merged.shown),
                working=working,
                needs_input=needs_input,
                idle=idle,
                starting=starting,
                subagents_running=running,
                subagents=subagents,
            ),
            per_harness=per_harness,
            digests=tuple(merged.digests),
        )

    @staticmethod
    def _merge(shares: dict[str, HarnessShare]) -> _Merged:
        """The board's order from every share."""
        shown: list[BoardSession] = []
        keys: list[int] = []
        digests: list[int] = []
        for share in shares.values():
            shown += share.shown
            keys += share.keys
            digests += share.digests
        # Each share is a sorted run, so this stable sort is a merge of them; ties keep the
        # harness order, then each harness's own, as the one sort over every row did.
        order = sorted(range(len(keys)), key=keys.__getitem__)
        return _Merged(
            shown=list(map(shown.__getitem__, order)),
            keys=list(map(keys.__getitem__, order)),
            digests=list(map(digests.__getitem__, order)),
        )

    @staticmethod
    def _move(merged: _Merged, moves: list[_Move]) -> bool:
        """Put each of *moves* into *merged* in place; ``False`` when one could order
        differently from the merge (its row not found, or a tie in the order, which the merge
        breaks by harness order): *merged* is then to be made again."""
        keys, shown, digests = merged.keys, merged.shown, merged.digests
        for move in moves:
            at = _index_of(keys, shown, move.old_key, move.old)
            if at is None:
                return False
            del keys[at], shown[at], digests[at]
            to = bisect.bisect_left(keys, move.new_key)
            if (to < len(keys) and keys[to] == move.new_key) or (to > 0 and keys[to - 1] == move.new_key):
                return False
            keys.insert(to, move.new_key)
            shown.insert(to, move.new)
            digests.insert(to, move.new_digest)
        return True

    def _patched(
        self,
        source: tuple[BoardSession, ...],
        prior: HarnessShare,
        moment: datetime,
        window_hours: float,
        all_sessions: bool,
        moves: list[_Move],
    ) -> HarnessShare | None:
        """*prior* with the few rows of *source* that are not the rows in their places in
        ``prior.source`` put in for those, or ``None`` when only working the share out again
        is sure to give what the passes over every row give. Each row it replaces in the
        shown rows is added to *moves* (which mean nothing once it returns ``None``: the order is
        then merged again)."""
        if (
            len(source) != len(prior.source)
            or all_sessions != prior.all_sessions
            or window_hours != prior.window_hours
            or moment < prior.at
            or (prior.until is not None and moment >= prior.until)
        ):
            return None
        # C-level over every row: the places whose row is a new object.
        places = list(compress(range(len(source)), map(operator.is_not, source, prior.source)))
        if not places or 4 * len(places) > len(source):
            return None
        limit = window_hours * 3600.0
        shown = list(prior.shown)
        keys = list(prior.keys)
        digests = list(prior.digests)
        totals = list(prior.counts)
        until = prior.until
        widened = prior.widened
        for i in places:
            old, new = prior.source[i], source[i]
            if (new.key, new.harness, new.session_id, new.project) != (
                old.key,
                old.harness,
                old.session_id,
                old.project,
            ):
                return None  # another session in its place: the widening and the strip may move
            was_in = all_sessions or in_window(old, prior.at, limit)[0]
            leaves = None
            now_in = True
            if not all_sessions:
                now_in, leaves = in_window(new, moment, limit)
            if was_in != now_in:
                return None  # the window moved: the widening may too
            if not now_in:
                continue
            wide_old = old
            wide_new = new
            pair = widened.get(id(old))
            if pair is not None and pair[0] is old:
                # The display id is widened by the sessions it collides with, which are the
                # same: the new row takes the width its predecessor had.
                wide_old = pair[1]
                wide_new = attrs.evolve(new, display_id=pair[1].display_id)
                if widened is prior.widened:
                    widened = dict(widened)
                del widened[id(old)]
                widened[id(new)] = (new, wide_new)
            old_key = order_key(old)
            at = _index_of(keys, shown, old_key, wide_old)
            if at is None:
                return None
            del keys[at], shown[at], digests[at]
            key = order_key(wide_new)
            to = bisect.bisect_left(keys, key)
            if to < len(keys) and keys[to] == key:
                return None  # a tie: the passes order it by the harness's own order
            self.rows_digested += 1
            digest = hash(session_content(wide_new))
            keys.insert(to, key)
            shown.insert(to, wide_new)
            digests.insert(to, digest)
            moves.append(_Move(old=wide_old, old_key=old_key, new=wide_new, new_key=key, new_digest=digest))
            for n, (a, b) in enumerate(zip(_counted(old), _counted(new), strict=True)):
                totals[n] += b - a
            if leaves is not None and (until is None or leaves < until):
                until = leaves
        self.shares_made += 1
        self.shares_patched += 1
        working, needs_input, idle, starting, running, subagents = totals
        return HarnessShare(
            source=source,
            all_sessions=all_sessions,
            window_hours=window_hours,
            at=moment,
            until=until,
            shown=tuple(shown),
            keys=tuple(keys),
            digests=tuple(digests),
            counts=(working, needs_input, idle, starting, running, subagents),
            per_harness=prior.per_harness,
            widened=widened,
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


def _counted(s: BoardSession) -> _ShareCounts:
    """What one shown row adds to its share's counts."""
    state = s.state
    subagents = s.subagents
    return (
        state == "working",
        state == "needs_input",
        state == "idle",
        state == "starting",
        sum(a.running for a in subagents) if subagents else 0,
        len(subagents),
    )


def _index_of(keys: list[int], shown: list[BoardSession], key: int, row: BoardSession) -> int | None:
    """The place of *row* (whose sort key is *key*) in a share's ordered rows."""
    at = bisect.bisect_left(keys, key)
    while at < len(keys) and keys[at] == key:
        if shown[at] is row:
            return at
        at += 1
    return None


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
