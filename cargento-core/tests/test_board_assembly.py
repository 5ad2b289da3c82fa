"""The board-wide passes kept per harness (cargento.board.assembly): the same board as the
passes over every row, worked out again only for the harness whose rows changed."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import cast

import attrs
from cargento.board import Board, BoardBuilder, BoardSession, Overlay
from cargento.board import derivation as derivation_module
from cargento.board.assembly import BoardAssembly, order_key
from cargento.board.document import State, count
from cargento.board.identity import widen_display_ids
from cargento.board.revision import session_content
from cargento.board.state import board_order
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from hypothesis import given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
WINDOW_H = 24.0


def _rows() -> list[BoardSession]:
    """Some real rows to vary: a built board's."""
    sessions = [FakeSession(f"s{i:02d}", age_s=30 + i) for i in range(6)]
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", sessions))])
    board = BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: NOW, processes=StaticProcesses()).build()
    return list(board.sessions)


BASE = _rows()


def _reference(
    rows: list[tuple[str, tuple[BoardSession, ...]]], moment: datetime, all_sessions: bool
) -> tuple[list[BoardSession], object, dict[str, int]]:
    """The passes the builder made over every row before the assembly."""
    sessions = [s for _, share in rows for s in share]
    if not all_sessions:
        limit = WINDOW_H * 3600.0
        sessions = [
            s
            for s in sessions
            if s.state != "idle"
            or (s.last_active_at is not None and (moment - s.last_active_at).total_seconds() <= limit)
        ]
    sessions = widen_display_ids(sessions)
    sessions.sort(key=board_order)
    per: dict[str, int] = {}
    for s in sessions:
        per[s.harness] = per.get(s.harness, 0) + 1
    return sessions, count(sessions), per


_row = st.builds(
    lambda base, harness, sid, state, age_h, none_last: attrs.evolve(
        base,
        harness=harness,
        key=f"{harness}:{sid}",
        session_id=sid,
        display_id=sid[:8],
        state=state,
        last_active_at=None if none_last else NOW - timedelta(hours=age_h),
    ),
    st.sampled_from(BASE),
    st.sampled_from(["h1", "h2", "h3"]),
    # Shared 8-character prefixes, so display ids widen.
    st.sampled_from(["abcdefgh", "abcdefgh1111", "abcdefgh2222", "zzzzzzzz", "q1", "q2"]),
    st.sampled_from(["idle", "working", "needs_input", "starting"]),
    st.sampled_from([0.0, 0.5, 0.5, 23.99, 24.0, 25.0, 300.0]),
    st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_row, max_size=14), st.booleans(), st.integers(0, 2**32))
def test_assembly_makes_what_the_passes_over_every_row_made(
    rows: list[BoardSession], all_sessions: bool, seed: int
) -> None:
    grouped: dict[str, list[BoardSession]] = {}
    for r in rows:
        grouped.setdefault(r.harness, []).append(r)
    shares = [(k, tuple(v)) for k, v in grouped.items()]
    random.Random(seed).shuffle(shares)
    assembly = BoardAssembly()
    for moment in (NOW, NOW + timedelta(hours=1), NOW + timedelta(hours=1)):
        got = assembly.assemble(shares, moment, window_hours=WINDOW_H, all_sessions=all_sessions)
        want, counts, per = _reference(shares, moment, all_sessions)
        assert [(s.key, s.display_id, s.state) for s in got.sessions] == [(s.key, s.display_id, s.state) for s in want]
        assert list(got.sessions) == want
        assert got.counts == counts
        assert {k: v for k, v in got.per_harness.items() if v} == per
        assert got.digests == tuple(hash(session_content(s)) for s in want)


def test_order_key_sorts_as_board_order() -> None:
    stamps = [NOW, NOW + timedelta(microseconds=1), NOW - timedelta(microseconds=1), NOW, None]
    rows = [
        attrs.evolve(BASE[0], state=state, last_active_at=at)
        for state in ("idle", "working", "needs_input", "starting")
        for at in stamps
    ]
    random.Random(3).shuffle(rows)
    assert sorted(rows, key=order_key) == sorted(rows, key=board_order)


def test_only_the_harness_whose_rows_changed_is_worked_out_again() -> None:
    one = tuple(attrs.evolve(BASE[i], harness="h1", key=f"h1:{i}") for i in range(3))
    two = tuple(attrs.evolve(BASE[i], harness="h2", key=f"h2:{i}") for i in range(3))
    assembly = BoardAssembly()
    first = assembly.assemble([("h1", one), ("h2", two)], NOW, window_hours=WINDOW_H, all_sessions=False)
    assert (assembly.shares_made, assembly.rows_digested) == (2, 6)
    # Nothing handed over changed: nothing is worked out, the rows are the same objects.
    again = assembly.assemble([("h1", one), ("h2", two)], NOW, window_hours=WINDOW_H, all_sessions=False)
    assert (assembly.shares_made, assembly.rows_digested) == (2, 6)
    assert all(a is b for a, b in zip(again.sessions, first.sessions, strict=True))
    # One row of h2 changed: h2's share is worked out again and that row alone digested.
    changed = attrs.evolve(two[1], title="a new title")
    moved = assembly.assemble(
        [("h1", one), ("h2", (two[0], changed, two[2]))], NOW, window_hours=WINDOW_H, all_sessions=False
    )
    assert (assembly.shares_made, assembly.rows_digested) == (3, 7)
    assert changed in moved.sessions
    assert moved.digests != first.digests


def test_a_share_is_worked_out_again_when_the_clock_moves_a_row_out_of_the_window() -> None:
    last = NOW - timedelta(hours=23)
    rows = (attrs.evolve(BASE[0], harness="h1", key="h1:a", state="idle", last_active_at=last),)
    assembly = BoardAssembly()
    assert len(assembly.assemble([("h1", rows)], NOW, window_hours=WINDOW_H, all_sessions=False).sessions) == 1
    inside = assembly.assemble([("h1", rows)], NOW + timedelta(minutes=59), window_hours=WINDOW_H, all_sessions=False)
    assert len(inside.sessions) == 1 and assembly.shares_made == 1
    outside = assembly.assemble([("h1", rows)], NOW + timedelta(hours=2), window_hours=WINDOW_H, all_sessions=False)
    assert outside.sessions == () and assembly.shares_made == 2
    # A clock that went back is never served a share worked out later.
    back = assembly.assemble([("h1", rows)], NOW, window_hours=WINDOW_H, all_sessions=False)
    assert len(back.sessions) == 1 and assembly.shares_made == 3


def test_a_widened_row_that_stood_is_the_same_object() -> None:
    a = attrs.evolve(BASE[0], harness="h1", key="h1:abcdefgh1111", session_id="abcdefgh1111", display_id="abcdefgh")
    b = attrs.evolve(BASE[1], harness="h1", key="h1:abcdefgh2222", session_id="abcdefgh2222", display_id="abcdefgh")
    c = attrs.evolve(BASE[2], harness="h1", key="h1:c", session_id="cccccccc")
    assembly = BoardAssembly()
    first = assembly.assemble([("h1", (a, b, c))], NOW, window_hours=WINDOW_H, all_sessions=False)
    assert sorted(s.display_id for s in first.sessions if s.session_id.startswith("abc")) == [
        "abcdefgh1111",
        "abcdefgh2222",
    ]
    c2 = attrs.evolve(c, title="moved")
    second = assembly.assemble([("h1", (a, b, c2))], NOW, window_hours=WINDOW_H, all_sessions=False)
    wide = {s.key: s for s in first.sessions}
    assert all(s is wide[s.key] for s in second.sessions if s.key != "h1:c")
    assert assembly.rows_digested == 4


def _builder(sessions: list[FakeSession]) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", sessions))])
    clock = [NOW]
    builder = BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: clock[0], processes=StaticProcesses())
    builder.clock_at = clock  # type: ignore[attr-defined]
    return builder


def test_a_standing_claim_stamped_with_each_build_moment_derives_nothing_again(monkeypatch: object) -> None:
    sessions = [FakeSession(f"s{i}", age_s=30 + i) for i in range(8)]
    builder = _builder(sessions)
    derived: list[str] = []
    real = derivation_module.RowDeriver.derive

    def counting(self: derivation_module.RowDeriver, row: object, *args: object) -> object:
        derived.append(row.reading.ref.session_id)  # type: ignore[attr-defined]
        return real(self, row, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(derivation_module.RowDeriver, "derive", counting)  # type: ignore[attr-defined]
    until = NOW + timedelta(minutes=5)

    def claim(at: datetime, source: str = "event:UserPromptSubmit") -> dict[tuple[str, str], Overlay]:
        return {("fake", "s2"): Overlay(state="working", at=at, source=source, until=until)}

    first = builder.build(now=NOW, overlays=claim(NOW), changes={})
    derived.clear()
    later = NOW + timedelta(milliseconds=300)
    second = builder.build(now=later, overlays=claim(later), changes={})
    assert derived == [], "the claim only moved with the clock"
    assert second.sessions == first.sessions
    assert builder.revision == 1
    # The claim itself moved (a new source): that row alone is derived again.
    third = builder.build(now=later, overlays=claim(later, "event:PreToolUse"), changes={})
    assert derived == ["s2"]
    assert next(s for s in third.sessions if s.session_id == "s2").state_source == "event:PreToolUse"


def test_the_builder_hands_the_board_the_passes_over_every_row_made() -> None:
    sessions = [FakeSession(f"s{i:02d}", age_s=10 + i * 4000) for i in range(30)]
    for s in sessions[::3]:
        s.turn = "running"
    builder = _builder(sessions)
    board: Board = builder.build(overlays={})
    handed = [s for s in board.sessions]
    want, counts, per = _reference([("fake", tuple(handed))], NOW, False)
    assert list(board.sessions) == want
    assert board.counts == counts
    assert {h.key: h.sessions for h in board.harnesses} == per


def test_a_harness_whose_claims_moved_only_with_the_clock_keeps_its_share() -> None:
    sessions = [FakeSession(f"s{i}", age_s=30 + i) for i in range(8)]
    builder = _builder(sessions)
    until = NOW + timedelta(minutes=5)

    def claim(at: datetime) -> dict[tuple[str, str], Overlay]:
        return {("fake", "s2"): Overlay(state="working", at=at, source="event:UserPromptSubmit", until=until)}

    builder.build(now=NOW, overlays=claim(NOW), changes={})
    made = builder.assembly.shares_made
    builder.build(now=NOW + timedelta(milliseconds=200), overlays=claim(NOW + timedelta(milliseconds=200)), changes={})
    assert builder.assembly.shares_made == made, "the harness handed over the very same rows"


_change = st.tuples(
    st.integers(0, 23),
    st.sampled_from(["idle", "working", "needs_input", "starting"]),
    st.sampled_from([0.0, 0.001, 0.5, 23.99, 24.0, 25.0]),
    st.sampled_from(["a", "b"]),
)


def _replay(
    rows: list[BoardSession], all_sessions: bool, steps: list[tuple[list[tuple[int, str, float, str]], float]]
) -> tuple[int, int]:
    """Apply *steps* (rows replaced by rows of the same sessions, then the clock moved on) and
    check every board against the passes over every row; the number of shares patched and of
    boards whose order was patched."""
    grouped: dict[str, list[BoardSession]] = {}
    for r in rows:
        grouped.setdefault(r.harness, []).append(r)
    current = {k: tuple(v) for k, v in grouped.items()}
    assembly = BoardAssembly()
    moment = NOW
    assembly.assemble(list(current.items()), moment, window_hours=WINDOW_H, all_sessions=all_sessions)
    for changes, hours in steps:
        moment += timedelta(hours=hours)
        for index, state, age_h, title in changes:
            harness = sorted(current)[index % len(current)]
            share = list(current[harness])
            at = index % len(share)
            share[at] = attrs.evolve(
                share[at], state=cast(State, state), last_active_at=moment - timedelta(hours=age_h), title=title
            )
            current[harness] = tuple(share)
        handed = list(current.items())
        got = assembly.assemble(handed, moment, window_hours=WINDOW_H, all_sessions=all_sessions)
        want, counts, per = _reference(handed, moment, all_sessions)
        assert [(s.key, s.display_id, s.state) for s in got.sessions] == [(s.key, s.display_id, s.state) for s in want]
        assert list(got.sessions) == want
        assert got.counts == counts
        assert {k: v for k, v in got.per_harness.items() if v} == per
        assert got.digests == tuple(hash(session_content(s)) for s in want)
    return assembly.shares_patched, assembly.orders_patched


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_row, min_size=1, max_size=18, unique_by=lambda r: r.key),
    st.booleans(),
    st.lists(
        st.tuples(st.lists(_change, min_size=1, max_size=3), st.sampled_from([0.0, 0.0, 0.2, 1.0, 30.0])), max_size=8
    ),
)
def test_a_patched_share_is_the_share_worked_out_again(
    rows: list[BoardSession], all_sessions: bool, steps: list[tuple[list[tuple[int, str, float, str]], float]]
) -> None:
    """A few rows replaced by rows of the same sessions (an event, an append), the clock moving
    on between builds: every board is the one the passes over every row make."""
    _replay(rows, all_sessions, steps)


def test_the_replayed_steps_reach_the_patch() -> None:
    """The replay above is not only the full work-out: a long seeded one patches, and still
    matches the passes over every row at every step."""
    rng = random.Random(11)
    sids = ["abcdefgh", "abcdefgh1111", "abcdefgh2222", "zzzzzzzz", "q1", "q2"]
    rows = [
        attrs.evolve(BASE[0], harness=h, key=f"{h}:{sid}", session_id=sid, display_id=sid[:8], state="working")
        for h in ("h1", "h2")
        for sid in sids
    ]
    states = ["idle", "working", "needs_input", "starting"]
    steps = [
        (
            [(rng.randrange(24), rng.choice(states), rng.choice([0.0, 0.001, 0.5, 23.99, 25.0]), rng.choice("ab"))],
            rng.choice([0.0, 0.0, 0.0, 0.2, 30.0]),
        )
        for _ in range(200)
    ]
    for all_sessions in (False, True):
        shares, orders = _replay(rows, all_sessions, steps)
        assert shares > 20
        assert orders > 10, "the board's order is patched too, not only the shares"


def test_one_row_replaced_patches_its_share_and_keeps_the_others() -> None:
    share = tuple(
        attrs.evolve(BASE[i % len(BASE)], harness="h1", key=f"h1:s{i:02d}", session_id=f"s{i:02d}", state="working")
        for i in range(12)
    )
    share = tuple(attrs.evolve(s, last_active_at=NOW - timedelta(seconds=i)) for i, s in enumerate(share))
    assembly = BoardAssembly()
    first = assembly.assemble([("h1", share)], NOW, window_hours=WINDOW_H, all_sessions=False)
    moved = attrs.evolve(share[5], state="needs_input", title="asks")
    handed = (*share[:5], moved, *share[6:])
    later = NOW + timedelta(seconds=1)
    second = assembly.assemble([("h1", handed)], later, window_hours=WINDOW_H, all_sessions=False)
    assert assembly.shares_patched == 1 and assembly.rows_digested == 13
    assert second.sessions[0] is moved, "needs input comes first"
    assert [s for s in second.sessions if s is not moved] == [s for s in first.sessions if s.key != moved.key]
    assert all(any(s is f for f in first.sessions) for s in second.sessions if s is not moved)
    want, counts, _ = _reference([("h1", handed)], later, False)
    assert list(second.sessions) == want and second.counts == counts
    # A row that leaves the window is no patch: the share is worked out again.
    gone = attrs.evolve(share[3], state="idle", last_active_at=NOW - timedelta(hours=30))
    third = assembly.assemble(
        [("h1", (*handed[:3], gone, *handed[4:]))], later, window_hours=WINDOW_H, all_sessions=False
    )
    assert assembly.shares_patched == 1
    assert len(third.sessions) == 11
