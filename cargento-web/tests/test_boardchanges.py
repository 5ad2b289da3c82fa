"""What moved between two boards (cargento_web.boardchanges): found from object identity, the
same as comparing the boards' row sets, and kept without looking at the rows that stood."""

from __future__ import annotations

import random

import attrs
from cargento.board import Board, BoardBuilder, BoardSession, State
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from cargento_web.boardchanges import ChangeTracker, difference
from hypothesis import given, settings
from hypothesis import strategies as st

BASE = BoardBuilder(
    load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", [FakeSession("s0")]))]),
    env={"HOME": "/home/u"},
    processes=StaticProcesses(),
).build()


def session(key: str, state: State) -> BoardSession:
    return attrs.evolve(BASE.sessions[0], key=key, session_id=key, state=state)


def board_of(rows: list[BoardSession], *, all_sessions: bool = False) -> Board:
    return attrs.evolve(BASE, sessions=tuple(rows), all=all_sessions)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 60), st.integers(0, 8), st.booleans())
def test_difference_is_the_row_sets_difference(seed: int, size: int, edits: int, shuffle: bool) -> None:
    rng = random.Random(seed)
    before = [session(f"k{i:02d}", rng.choice(["idle", "working"])) for i in range(size)]
    rows = list(before)
    for _ in range(edits):
        what = rng.random()
        if rows and what < 0.3:
            rows.pop(rng.randrange(len(rows)))
        elif rows and what < 0.6:
            i = rng.randrange(len(rows))
            rows[i] = attrs.evolve(rows[i], title="moved")
        elif rows and what < 0.8:
            rows.insert(rng.randrange(len(rows) + 1), rows.pop(rng.randrange(len(rows))))
        else:
            rows.insert(rng.randrange(len(rows) + 1), session(f"n{rng.randrange(99)}", "idle"))
    if shuffle:
        rng.shuffle(rows)
    came, went, ids = difference(rows, before)
    assert ids is None or ids == {id(r) for r in rows}
    old, new = {id(r) for r in before}, {id(r) for r in rows}
    assert [(i, id(r)) for i, r in came] == [(i, id(r)) for i, r in enumerate(rows) if id(r) not in old]
    assert sorted(map(id, went)) == sorted(id(r) for r in before if id(r) not in new)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 60), st.integers(0, 8), st.booleans())
def test_difference_of_boards_as_long_is_the_row_sets_difference(
    seed: int, size: int, edits: int, shuffle: bool
) -> None:
    """Rows replaced in place and rows moved (the order moves when a state does), the length
    kept: the places looked at alone give what the row sets give."""
    rng = random.Random(seed)
    before = [session(f"k{i:02d}", rng.choice(["idle", "working"])) for i in range(size)]
    rows = list(before)
    for _ in range(edits):
        i = rng.randrange(len(rows))
        if rng.random() < 0.5:
            rows[i] = attrs.evolve(rows[i], title="moved")
        else:
            rows.insert(rng.randrange(len(rows) + 1), rows.pop(i))
    if shuffle:
        rng.shuffle(rows)
    came, went, ids = difference(rows, before)
    assert ids is None or ids == {id(r) for r in rows}
    old, new = {id(r) for r in before}, {id(r) for r in rows}
    assert [(i, id(r)) for i, r in came] == [(i, id(r)) for i, r in enumerate(rows) if id(r) not in old]
    assert [id(r) for r in went] == [id(r) for r in before if id(r) not in new], "in the order of before"


def test_the_tracker_keeps_the_index_and_counts_from_the_changed_rows() -> None:
    rows = [session(f"k{i:02d}", "idle" if i % 2 else "working") for i in range(40)]
    tracker = ChangeTracker()
    first = tracker.see(board_of(rows))
    assert first.full and tracker.rows_examined == 40
    rows[3] = attrs.evolve(rows[3], state="needs_input")
    gone = rows.pop(10)
    b = board_of(rows)
    moves = tracker.see(b)
    assert tracker.see(b) is moves, "the same board is worked out once"
    assert not moves.full and [s.key for s in moves.changed] == ["k03"]
    assert {s.key for s in moves.dropped} == {"k03", gone.key}
    assert moves.keys_moved
    assert tracker.rows_examined == 40 + 3
    assert dict(moves.rows) == {(s.harness, s.session_id): s for s in rows}
    want: dict[str, int] = {}
    for s in rows:
        want[s.state] = want.get(s.state, 0) + 1
    assert dict(moves.states) == want
    # A board of the other flavour is looked at whole.
    assert tracker.see(board_of(rows, all_sessions=True)).full
