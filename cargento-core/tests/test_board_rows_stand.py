"""A re-read harness's sessions whose reading and hook answers did not move keep their rows
(cargento.board.builder's per-session derived rows): one append derives one row, and every
board reads as a builder deriving every row afresh makes it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import attrs
from cargento import hookimpl
from cargento.board import Board, BoardBuilder, Overlay, board_json
from cargento.models import Discovery, HarnessContext, SessionReading, SessionRef
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession
from hypothesis import example, given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class Appended(FakeHarness):
    """A fake harness whose sessions carry a fingerprint that an append moves."""

    def __init__(self, sessions: list[FakeSession]) -> None:
        super().__init__("fake", sessions)
        self.versions = {s.session_id: 0 for s in sessions}

    def append(self, sid: str, at: datetime, turn: str = "unknown") -> None:
        self.versions[sid] += 1
        self.sessions[sid].at = at
        self.sessions[sid].turn = turn

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        found = super().discover(ctx)
        refs = tuple(attrs.evolve(r, fingerprint=f"v{self.versions[r.session_id]}") for r in found.sessions)
        return attrs.evolve(found, sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        return super().read_session(ref, ctx)


def _world(n: int) -> tuple[Appended, BoardBuilder]:
    harness = Appended([FakeSession(f"s{i:02d}", at=NOW - timedelta(seconds=40 + 50 * i)) for i in range(n)])
    return harness, _builder(harness)


def _builder(harness: Appended) -> BoardBuilder:
    reg = load_registry(entry_points=False, extra=[("fake", harness)])
    return BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: NOW, processes=StaticProcesses())


def _doc(board: Board) -> bytes:
    return board_json(attrs.evolve(board, revision=0))


CHANGED = {"fake": frozenset({"/fake/x"})}


def test_one_append_derives_the_appended_row_alone() -> None:
    harness, builder = _world(24)
    first = builder.build(now=NOW, changes=None)
    derived = builder.rows_derived
    harness.append("s05", NOW - timedelta(seconds=1), turn="open")
    second = builder.build(now=NOW, changes=CHANGED)
    assert builder.rows_derived - derived == 1, "only the session whose fingerprint moved is derived"
    before = {s.session_id: s for s in first.sessions}
    assert all(s is before[s.session_id] for s in second.sessions if s.session_id != "s05")
    assert next(s for s in second.sessions if s.session_id == "s05").state == "working"
    assert _doc(second) == _doc(_builder(harness).build(now=NOW, changes=None))


def test_a_row_stands_no_longer_than_the_reuse_interval() -> None:
    harness, builder = _world(6)
    builder.build(now=NOW, changes=None)
    derived = builder.rows_derived
    later = NOW + timedelta(seconds=1)
    board = builder.build(now=later, changes=CHANGED)
    assert builder.rows_derived - derived == 6, "a second later every row is derived against the clock again"
    assert _doc(board) == _doc(_builder(harness).build(now=later, changes=None))


_step = st.tuples(
    st.lists(
        st.tuples(
            st.integers(0, 11), st.sampled_from([0.5, 5.0, 200.0]), st.sampled_from(["unknown", "open", "ended"])
        ),
        max_size=3,
    ),
    st.dictionaries(st.integers(0, 11), st.sampled_from(["working", "idle", None]), max_size=3),
    st.sampled_from([0.0, 0.0, 1.0, 30.0, 95.0]),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_step, min_size=1, max_size=6))
# An idle claim over a store still inside the working window overrules it; thirty seconds
# on, the store reads idle by itself and the row (idle, "1m ago" both times) must say so.
@example(steps=[([], {}, 30.0), ([], {0: "idle"}, 0.0), ([], {}, 30.0)])
def test_every_board_reads_as_a_builder_deriving_every_row(
    steps: list[tuple[list[tuple[int, float, str]], dict[int, str | None], float]],
) -> None:
    harness, builder = _world(12)
    moment = NOW
    claims: dict[tuple[str, str], Overlay] = {}
    builder.build(now=moment, changes=None)
    for appends, overlays, seconds in steps:
        # The clock stands still or moves past the reuse interval: a row that stood is then
        # exactly what deriving it again gives.
        moment += timedelta(seconds=seconds)
        for index, age, turn in appends:
            harness.append(f"s{index:02d}", moment - timedelta(seconds=age), turn)
        for index, state in overlays.items():
            key = ("fake", f"s{index:02d}")
            if state is None:
                claims.pop(key, None)
            else:
                at = moment if state == "working" else moment - timedelta(seconds=2)
                claims[key] = Overlay(state=state, at=at, source="event:test")  # type: ignore[arg-type]
        got = builder.build(now=moment, overlays=dict(claims), changes=CHANGED if appends else {})
        fresh = _builder(harness).build(now=moment, overlays=dict(claims), changes=None)
        assert _doc(got) == _doc(fresh)
