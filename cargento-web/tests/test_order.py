"""The stable order the live board publishes: rows move only on a state change, entry or exit."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import attrs
import pytest
from cargento.board import Board, BoardSession, Counts
from cargento.board.document import State
from cargento_web.boardchanges import ChangeTracker
from cargento_web.order import STATE_RANK, StableOrder
from hypothesis import given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def session(key: str, state: State) -> BoardSession:
    return BoardSession(
        harness="fake",
        harness_label="Fake",
        session_id=key,
        key=key,
        display_id=key[:8],
        identity=("", "fake", key),
        project=None,
        cwd=None,
        title=key,
        state=state,
        detail="",
        waiting=None,
        subagents=(),
        tasks=(),
        tasks_done=0,
        model=None,
        model_display=None,
        authority=None,
        output_tokens_per_min=None,
        output_tokens_total=None,
        started_at=None,
        last_active_at=None,
        turn=None,
        resume_command=None,
        resume_cwd=None,
        read_by_scanning=False,
        instruction=None,
        role=None,
        loop=None,
        ended=False,
        missing=(),
        notes=(),
        faults=(),
        rate_limits=(),
        ai_units=None,
        state_source="store",
    )


def board(*rows: tuple[str, State]) -> Board:
    """A board in core's order: the rows as given (core sorts by state, then latest write)."""
    sessions = tuple(session(k, s) for k, s in rows)
    counts = Counts(sessions=len(sessions), working=0, needs_input=0, idle=0, subagents_running=0, subagents=0)
    return Board(
        schema=1,
        revision=1,
        generated_at=NOW,
        as_of=None,
        window_hours=24.0,
        all=False,
        counts=counts,
        harnesses=(),
        sessions=sessions,
    )


def keys(b: Board) -> list[str]:
    return [s.key for s in b.sessions]


def test_the_first_board_keeps_cores_order() -> None:
    order = StableOrder()
    first = board(("w1", "working"), ("w2", "working"), ("i1", "idle"), ("i2", "idle"))
    assert keys(order.apply(first)) == ["w1", "w2", "i1", "i2"]


def test_a_newer_write_does_not_reorder_rows_of_one_state() -> None:
    order = StableOrder()
    order.apply(board(("w1", "working"), ("w2", "working"), ("w3", "working")))
    # core now puts w3 first (it wrote last), then w1: nothing changed state, so nothing moves
    assert keys(order.apply(board(("w3", "working"), ("w1", "working"), ("w2", "working")))) == ["w1", "w2", "w3"]


def test_a_row_that_changes_state_moves_to_the_end_of_its_new_group() -> None:
    order = StableOrder()
    order.apply(board(("w1", "working"), ("w2", "working"), ("i1", "idle")))
    # i1 starts working: it joins the working rows after those already there
    assert keys(order.apply(board(("i1", "working"), ("w2", "working"), ("w1", "working")))) == ["w1", "w2", "i1"]
    # w1 starts waiting on you: it goes above every working row
    assert keys(order.apply(board(("w1", "needs_input"), ("i1", "working"), ("w2", "working")))) == ["w1", "w2", "i1"]
    assert (
        order.apply(board(("w1", "needs_input"), ("i1", "working"), ("w2", "working"))).sessions[0].state
        == "needs_input"
    )


def test_rows_waiting_on_you_keep_the_order_they_started_waiting_in() -> None:
    order = StableOrder()
    order.apply(board(("a", "needs_input"), ("b", "working")))
    got = order.apply(board(("b", "needs_input"), ("a", "needs_input")))
    assert keys(got) == ["a", "b"]


def test_the_newest_idle_arrival_heads_recent_and_the_rest_keep_their_order() -> None:
    order = StableOrder()
    order.apply(board(("w1", "working"), ("i1", "idle"), ("i2", "idle")))
    got = order.apply(board(("i2", "idle"), ("w1", "idle"), ("i1", "idle")))
    assert keys(got) == ["w1", "i1", "i2"]


def test_a_row_that_leaves_and_returns_enters_anew() -> None:
    order = StableOrder()
    order.apply(board(("w1", "working"), ("w2", "working")))
    order.apply(board(("w2", "working")))
    assert keys(order.apply(board(("w1", "working"), ("w2", "working")))) == ["w2", "w1"]


def test_an_unchanged_order_returns_the_same_board() -> None:
    order = StableOrder()
    b = board(("w1", "working"), ("i1", "idle"))
    assert order.apply(b) is b
    moved = board(("w2", "working"), ("w1", "working"))
    out = order.apply(moved)
    assert out is not moved and attrs.evolve(out, sessions=moved.sessions) == moved


def test_an_order_is_told_apart_from_cores_by_the_rows_identity_not_their_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Comparing 640 rows by value where the orders part cost about 0.2 ms an event.
    order = StableOrder()
    order.apply(board(("w1", "working"), ("w2", "working")))

    def compared(self: BoardSession, other: object) -> bool:
        raise AssertionError("a row compared by value")

    monkeypatch.setattr(BoardSession, "__eq__", compared)
    moved = board(("w2", "working"), ("w1", "working"))  # core's order changed, ours did not
    out = order.apply(moved)
    assert keys(out) == ["w1", "w2"]
    again = board(("w1", "working"), ("w2", "working"))
    assert order.apply(again) is again


# -- placing only the rows that changed gives the order ranking every row gave --------------

STATES: list[State] = ["needs_input", "working", "starting", "idle"]


def board_of(rows: list[BoardSession]) -> Board:
    """A board of these very row objects, in this order."""
    return attrs.evolve(board(), sessions=tuple(rows))


class EveryRow:
    """The reference: every row's entry looked up and every row ranked, on every board."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, int, int]] = {}
        self._batch = 0

    def apply(self, b: Board) -> list[str]:
        self._batch += 1
        entries: dict[str, tuple[str, int, int]] = {}
        for place, s in enumerate(b.sessions):
            old = self._entries.get(s.key)
            if old is None or old[0] != s.state:
                old = (s.state, self._batch, place)
            entries[s.key] = old
        self._entries = entries

        def rank(s: BoardSession) -> tuple[int, int, int]:
            _state, batch, place = entries[s.key]
            return (STATE_RANK.get(s.state, len(STATE_RANK)), -batch if s.state == "idle" else batch, place)

        return [s.key for s in sorted(b.sessions, key=rank)]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 12), st.integers(1, 40))
def test_placing_the_changed_rows_orders_as_ranking_every_row(seed: int, boards: int, size: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{i:02d}" for i in range(size)]
    rows = {k: session(k, rng.choice(STATES)) for k in rng.sample(keys, max(1, size // 2))}
    quick, every, told, tracker = StableOrder(), EveryRow(), StableOrder(), ChangeTracker()
    for _ in range(boards):
        for _ in range(rng.choice([0, 1, 1, 2, 5, size])):
            k = rng.choice(keys)
            what = rng.random()
            if what < 0.2:
                rows.pop(k, None)  # leaves the board
            elif what < 0.5 and k in rows:
                rows[k] = attrs.evolve(rows[k], title=f"{k} moved")  # changed, same state
            else:
                rows[k] = session(k, rng.choice(STATES))  # new, or a new state
        order = list(rows.values())
        rng.shuffle(order)  # core's order of the build
        b = board_of(order)
        want = every.apply(b)
        assert [s.key for s in quick.apply(b).sessions] == want
        # Told what moved (the features' changes of the same board), the same order.
        tracker.see(b)
        assert [s.key for s in told.apply(b, tracker.peek(attrs.evolve(b, revision=9))).sessions] == want
    assert quick.indexed == told.indexed == 0, "every row that went was found by its rank"


def test_a_board_where_one_row_changed_places_that_row_alone() -> None:
    rows = [session(f"k{i:02d}", "idle" if i % 3 else "working") for i in range(60)]
    order = StableOrder()
    order.apply(board_of(rows))
    assert order.rows_placed == 60
    rows[7] = attrs.evolve(rows[7], state="needs_input")
    moved = order.apply(board_of(rows))
    assert order.rows_placed == 61
    assert moved.sessions[0] is rows[7]
    order.apply(board_of(rows))
    assert order.rows_placed == 61, "nothing changed: nothing is placed"
    # A row replaced in its state, and one that changes state: each found by its rank.
    rows[20] = attrs.evolve(rows[20], title="a new title")
    rows[30] = attrs.evolve(rows[30], state="needs_input")
    again = order.apply(board_of(rows))
    assert order.indexed == 0, "the rows that went were found by their ranks, not an index of every row"
    assert again.sessions[1] is rows[30] and rows[20] in again.sessions
