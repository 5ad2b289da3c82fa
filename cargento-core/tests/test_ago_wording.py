"""How long an ``ago`` wording stands (cargento.board.detail.ago_changes_at)."""

from __future__ import annotations

from cargento.board.detail import ago, ago_changes_at
from hypothesis import given
from hypothesis import strategies as st

_ages = st.floats(min_value=-100.0, max_value=400 * 86400.0, allow_nan=False)


@given(age=_ages, part=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
def test_the_wording_stands_until_the_age_it_names_and_changes_there(age: float, part: float) -> None:
    changes_at = ago_changes_at(age)
    assert changes_at is not None and changes_at > age
    between = age + part * (changes_at - age)
    if between < changes_at:
        assert ago(between) == ago(age)
    assert ago(changes_at) != ago(age)


def test_an_unknown_age_reads_the_same_for_good() -> None:
    assert ago_changes_at(None) is None and ago(None) == "unknown"


def test_the_steps_of_the_wording() -> None:
    assert [ago_changes_at(s) for s in (0, 4.9, 5, 59.2, 60, 3599, 3600, 86399, 86400)] == [
        5,
        5,
        6,
        60,
        120,
        3600,
        7200,
        86400,
        172800,
    ]
