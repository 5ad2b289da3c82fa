"""The demo scheduler (:class:`cargento.demo.Schedule`) and the demo helpers beside it."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.demo import Action, Schedule, play, require_inside, seeded_uuid
from cargento.errors import HarnessError
from hypothesis import given, settings
from hypothesis import strategies as st

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

#: ``(cycle, index in the cycle's plan, scheduled moment, now of the step that ran it)``.
Call = tuple[int, int, datetime, datetime]


class Recorder:
    """A schedule whose plan draws 0-6 events per cycle from its rng, logging every call."""

    def __init__(self, cycle_s: float, seed: object = "test", most: int = 6) -> None:
        self.calls: list[Call] = []
        self.planned: list[int] = []
        self.most = most
        self.now = START
        self.schedule = Schedule(START, cycle_s, self.plan, seed=seed)

    def plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        self.planned.append(cycle)
        offsets = [rng.uniform(0, self.schedule.cycle_s) for _ in range(rng.randint(0, self.most))]
        return [(offset, self._act(cycle, index)) for index, offset in enumerate(sorted(offsets))]

    def _act(self, cycle: int, index: int) -> Action:
        def act(at: datetime) -> None:
            self.calls.append((cycle, index, at, self.now))

        return act

    def step(self, seconds: float) -> int:
        self.now = START + timedelta(seconds=seconds)
        return self.schedule.step(self.now)

    def all_due(self, seconds: float) -> list[tuple[int, int, datetime]]:
        """Every event a clean clock would have run by *seconds*, from a fresh copy of the plan."""
        fresh = Recorder(self.schedule.cycle_s, self.schedule.seed, self.most)
        t = (START + timedelta(seconds=seconds) - START).total_seconds()  # the clock has microseconds
        out = []
        for cycle in range(math.floor(t / fresh.schedule.cycle_s) + 1):
            for index, (offset, _) in enumerate(fresh.plan(cycle, fresh.schedule.rng(cycle))):
                at = cycle * fresh.schedule.cycle_s + offset
                if at <= t:
                    out.append((cycle, index, START + timedelta(seconds=at)))
        return out


cycles = st.floats(min_value=1.0, max_value=600.0)
moments = st.floats(min_value=-2000.0, max_value=200_000.0)


@settings(max_examples=300, deadline=None)
@given(cycle_s=cycles, steps=st.lists(moments, max_size=60), most=st.integers(0, 6))
def test_arbitrary_clocks_never_replay_never_write_the_future_and_stay_bounded(
    cycle_s: float, steps: list[float], most: int
) -> None:
    rec = Recorder(cycle_s, most=most)
    high = float("-inf")
    for seconds in steps:
        before = len(rec.calls)
        ran = rec.step(seconds)
        made = rec.calls[before:]
        assert ran == len(made)
        assert ran <= 2 * most, "at most the rest of one cycle and part of the present one"
        if seconds <= high or seconds < 0:
            assert not made, "a clock at or behind its high-water mark (or before start) writes nothing"
        assert all(at <= now for _, _, at, now in made), "nothing is written ahead of the clock"
        assert {cycle for cycle, *_ in made} <= {cycle for cycle in rec.planned[-2:]}
        high = max(high, seconds)
    keys = [(cycle, index) for cycle, index, _, _ in rec.calls]
    assert len(keys) == len(set(keys)), "no event runs twice"
    stamps = [at for _, _, at, _ in rec.calls]
    assert stamps == sorted(stamps), "scheduled moments never go backwards"
    assert len(rec.planned) == len(set(rec.planned)), "each cycle is planned once"


@settings(max_examples=200, deadline=None)
@given(cycle_s=cycles, gaps=st.lists(st.floats(min_value=0.0, max_value=0.99), min_size=1, max_size=40))
def test_a_clock_that_never_skips_a_cycle_runs_everything_once_in_order(cycle_s: float, gaps: list[float]) -> None:
    rec = Recorder(cycle_s)
    seconds = 0.0
    for gap in gaps:
        seconds += gap * cycle_s  # less than one cycle between steps (with room for the clock's microseconds)
        rec.step(seconds)
    assert [(c, i, at) for c, i, at, _ in rec.calls] == rec.all_due(seconds)


@settings(max_examples=100, deadline=None)
@given(cycle_s=cycles, steps=st.lists(moments, max_size=30), seed=st.integers())
def test_the_schedule_is_a_function_of_start_cycle_seed_and_steps(
    cycle_s: float, steps: list[float], seed: int
) -> None:
    a, b = Recorder(cycle_s, seed), Recorder(cycle_s, seed)
    for seconds in steps:
        assert a.step(seconds) == b.step(seconds)
    assert a.calls == b.calls


def test_a_jump_finishes_the_cycle_in_hand_at_its_times_and_resumes_in_the_present_one() -> None:
    calls: list[tuple[int, datetime]] = []

    def plan(cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        def act(at: datetime) -> None:
            calls.append((cycle, at))

        return [(offset, act) for offset in (0.0, 30.0, 60.0)]

    schedule = Schedule(START, 100.0, plan, seed=1)
    assert schedule.step(START + timedelta(seconds=40)) == 2
    assert schedule.cycle == 0
    assert schedule.step(START + timedelta(days=3, seconds=45)) == 3  # 60 s of cycle 0, then 0 s and 30 s
    assert schedule.cycle == 2592
    assert calls[2:] == [
        (0, START + timedelta(seconds=60)),
        (2592, START + timedelta(seconds=259_200)),
        (2592, START + timedelta(seconds=259_230)),
    ]


def test_a_clock_set_back_waits_for_its_high_water_mark() -> None:
    calls: list[datetime] = []
    schedule = Schedule(START, 60.0, lambda cycle, rng: [(10.0, calls.append), (20.0, calls.append)], seed=1)
    assert schedule.step(START + timedelta(seconds=15)) == 1
    assert schedule.step(START - timedelta(hours=5)) == 0
    assert schedule.step(START + timedelta(seconds=15)) == 0
    assert schedule.step(START + timedelta(seconds=19)) == 0
    assert schedule.step(START + timedelta(seconds=20)) == 1
    assert calls == [START + timedelta(seconds=10), START + timedelta(seconds=20)]


def test_a_late_first_step_finishes_cycle_zero_and_skips_to_the_present() -> None:
    calls: list[datetime] = []
    schedule = Schedule(START, 60.0, lambda cycle, rng: [(0.0, calls.append), (30.0, calls.append)], seed=1)
    assert schedule.step(START - timedelta(seconds=5)) == 0
    assert schedule.cycle is None
    assert schedule.step(START + timedelta(seconds=3600)) == 3
    assert calls == [START, START + timedelta(seconds=30), START + timedelta(seconds=3600)]
    assert schedule.cycle == 60


def test_each_cycle_gets_its_own_seeded_rng() -> None:
    seen: dict[int, float] = {}

    def plan(cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        seen[cycle] = rng.random()
        return []

    schedule = Schedule(START, 10.0, plan, seed="s")
    for seconds in (1, 11, 21):
        schedule.step(START + timedelta(seconds=seconds))
    assert seen == {n: random.Random(f"s:{n}").random() for n in range(3)}
    assert len(set(seen.values())) == 3


def test_tolerated_errors_are_skipped_and_counted_others_propagate_without_a_retry() -> None:
    calls: list[str] = []

    def gone(at: datetime) -> None:
        raise FileNotFoundError("the demo home was removed")

    def broken(at: datetime) -> None:
        calls.append("broken")
        raise RuntimeError("bug")

    plan = [(1.0, gone), (2.0, lambda at: calls.append("after")), (3.0, broken), (4.0, lambda at: calls.append("last"))]
    schedule = Schedule(START, 10.0, lambda cycle, rng: plan, seed=1, tolerate=(OSError,))
    assert schedule.step(START + timedelta(seconds=2)) == 2
    assert schedule.skipped == 1 and calls == ["after"]
    with pytest.raises(RuntimeError):
        schedule.step(START + timedelta(seconds=3))
    schedule.step(START + timedelta(seconds=5))
    assert calls == ["after", "broken", "last"]


@pytest.mark.parametrize("offset", [-0.5, 10.0, 12.0, float("nan")])
def test_a_plan_outside_its_cycle_is_refused(offset: float) -> None:
    schedule = Schedule(START, 10.0, lambda cycle, rng: [(offset, lambda at: None)], seed=1)
    with pytest.raises(ValueError, match="outside"):
        schedule.step(START + timedelta(seconds=1))


@pytest.mark.parametrize("cycle_s", [0.0, -1.0, float("nan")])
def test_a_cycle_must_have_a_length(cycle_s: float) -> None:
    with pytest.raises(ValueError):
        Schedule(START, cycle_s, lambda cycle, rng: [], seed=1)


def test_play_writes_a_script_at_once_from_its_base() -> None:
    calls: list[tuple[str, datetime]] = []
    play([(5.0, lambda at: calls.append(("b", at))), (1.0, lambda at: calls.append(("a", at)))], START)
    assert calls == [("b", START + timedelta(seconds=5)), ("a", START + timedelta(seconds=1))]


def test_seeded_uuids_repeat_with_the_seed() -> None:
    first = [seeded_uuid(random.Random("x")) for _ in range(2)]
    assert first[0] == first[1] and first[0][14] == "4"
    assert seeded_uuid(random.Random("y")) != first[0]


def test_require_inside_refuses_a_store_outside_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".store").mkdir(parents=True)
    require_inside(home / ".store", home, "Test")
    (home / "link").symlink_to(tmp_path)
    with pytest.raises(HarnessError, match=r"the Test store resolves to .* outside the demo home"):
        require_inside(home / "link" / "store", home, "Test")
