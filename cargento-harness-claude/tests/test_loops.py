"""The three loop readings of the interpretation notes, and when they are withheld."""

from __future__ import annotations

from cargento_harness_claude.loops import ToolOutcomes
from hypothesis import given
from hypothesis import strategies as st


def _run(pattern: str, *, whole: bool = True) -> ToolOutcomes:
    outcomes = ToolOutcomes(whole_request=whole)
    for mark in pattern:
        outcomes.outcome(failed=mark == "x")
    return outcomes


def test_four_consecutive_failures_are_the_tight_run() -> None:
    reading = _run("ooxxxx").reading()
    assert reading is not None and reading.kind == "run" and reading.note == "4 failed tool calls in a row"
    assert _run("xxxo").reading() is None or _run("xxxo").reading().kind != "run"  # type: ignore[union-attr]


def test_three_fail_one_succeeds_three_fail_is_the_total() -> None:
    """The case the run alone reads as clean: no success resets the total."""
    outcomes = _run("xxxoxxx")
    reading = outcomes.reading()
    assert reading is not None and reading.kind == "total"
    assert (reading.failures, reading.successes) == (6, 1)


def test_six_scattered_failures_among_many_successes_is_ordinary_work() -> None:
    assert _run("xo" * 6 + "o" * 200).reading() is None


def test_three_failures_and_no_success_is_nothing_worked() -> None:
    reading = _run("xxx").reading()
    assert reading is not None and reading.kind == "nothing-worked"
    assert _run("xxox").reading() is None


def test_whole_request_readings_withheld_mid_request() -> None:
    assert _run("xxxoxxx", whole=False).reading() is None
    assert _run("xxx", whole=False).reading() is None
    reading = _run("xxxx", whole=False).reading()
    assert reading is not None and reading.kind == "run"


def test_a_new_request_starts_counting_again() -> None:
    outcomes = _run("xxx", whole=False)
    outcomes.new_request()
    assert outcomes.whole_request and outcomes.reading() is None


@given(st.text(alphabet="xo", max_size=60), st.booleans())
def test_readings_match_their_definitions(pattern: str, whole: bool) -> None:
    reading = _run(pattern, whole=whole).reading()
    failures, successes = pattern.count("x"), pattern.count("o")
    trailing = len(pattern) - len(pattern.rstrip("x"))
    if trailing >= 4:
        assert reading is not None and reading.kind == "run"
    elif whole and failures >= 6 and failures > successes:
        assert reading is not None and reading.kind == "total"
    elif whole and failures >= 3 and successes == 0:
        assert reading is not None and reading.kind == "nothing-worked"
    else:
        assert reading is None
