"""cargento.board.state.same_but_clock, compared field by field, says what comparing two
overlays with their ``at`` made equal says."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
from cargento.board.state import Overlay, same_but_clock
from cargento.models import Evidence, Gate
from hypothesis import given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _reference(before: Overlay | None, after: Overlay | None, last_active: datetime | None) -> bool:
    """The rule as first written: the overlays equal once ``at`` is set alike."""
    if before == after:
        return True
    if before is None or after is None or attrs.evolve(before, at=after.at) != after:
        return False
    if not before.evidence and before.state != "working":
        return False
    if before.gate is not None:
        return True
    return last_active is None or (before.at >= last_active and after.at >= last_active)


_moment = st.sampled_from([NOW - timedelta(seconds=5), NOW, NOW + timedelta(seconds=1)])
_evidence = st.sampled_from(
    [
        (),
        (
            Evidence(
                reading="state", signal="hook event", source="claude · event", observed_at=NOW, said="claims working"
            ),
        ),
    ]
)
_overlay = st.one_of(
    st.none(),
    st.builds(
        Overlay,
        state=st.sampled_from(["working", "idle", "needs_input"]),
        at=_moment,
        source=st.sampled_from(["event", "event:Stop"]),
        detail=st.sampled_from([None, "reading a file"]),
        gate=st.sampled_from([None, Gate(kind="permission", text="allow?", since=NOW, source="hook")]),
        until=st.sampled_from([None, NOW + timedelta(minutes=5)]),
        evidence=_evidence,
    ),
)


@settings(max_examples=500, deadline=None)
@given(_overlay, _overlay, st.one_of(st.none(), _moment), st.booleans())
def test_same_but_clock_is_the_rule_on_overlays_made_alike(
    before: Overlay | None, after: Overlay | None, last_active: datetime | None, restamp: bool
) -> None:
    if restamp and before is not None and after is not None:
        after = attrs.evolve(before, at=after.at)  # the same claim asked for at another moment
    assert same_but_clock(before, after, last_active) == _reference(before, after, last_active)


#: A value other than the base overlay's, for every field but ``at`` and ``state``.
_OTHER: dict[str, Any] = {
    "source": "event:Stop",
    "detail": "x",
    "gate": Gate(kind="permission", since=NOW),
    "until": NOW,
    "evidence": (Evidence(reading="state", signal="hook event", source="s", said="s"),),
}


def test_every_field_but_at_is_compared() -> None:
    """A field added to Overlay is compared too (the fields are read from the class)."""
    base = Overlay(state="working", at=NOW, source="event")
    assert {f.name for f in attrs.fields(Overlay)} == {"at", "state", *_OTHER}
    for name, value in _OTHER.items():
        moved = attrs.evolve(base, at=NOW + timedelta(seconds=1), **{name: value})
        assert not same_but_clock(base, moved, None), name
    assert same_but_clock(base, attrs.evolve(base, at=NOW + timedelta(seconds=1)), None)
