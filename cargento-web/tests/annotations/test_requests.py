"""The body parser of ``POST /api/annotate`` over whatever a client sends: it answers with a
change or a refusal and never raises, and what it accepts is within every limit."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
from cargento_web.annotations.requests import Annotate, Refusal, parse_annotate
from hypothesis import given, settings
from hypothesis import strategies as st

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
_scalar = st.none() | st.booleans() | st.integers(-5, 10) | st.text(max_size=260)
_value = st.recursive(
    _scalar,
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=20,
)
_body = st.fixed_dictionaries(
    {},
    optional={
        "harness": st.sampled_from(["claude", "codex", "", "Bad Key", 3]),
        "sid": st.text(max_size=20) | st.integers(-9, 9),
        "goal": _value,
        "goal_source": st.sampled_from(["typed", "prompt", "other", None]),
        "lines": st.lists(st.text(max_size=250), max_size=9) | _value,
        "origins": st.lists(
            st.none() | st.integers(-2, 8) | st.just({"entry": "your prompt"}) | st.just({}), max_size=9
        )
        | _value,
        "expected_revision": _value,
        "clear": _value,
        "settle_through": st.sampled_from(["2026-12-01T11:00:00Z", "2999-01-01T00:00:00Z", "soon", 1e12, None]),
    },
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.binary(max_size=80), _body.map(orjson.dumps)))
def test_the_parser_answers_every_body_and_what_it_takes_is_within_the_limits(body: bytes) -> None:
    parsed = parse_annotate(body, NOW)
    assert isinstance(parsed, Annotate | Refusal)
    if isinstance(parsed, Refusal):
        assert parsed.reason
        return
    change = parsed.change
    if change.lines is not None:
        assert len(change.lines) <= 6
        assert all(0 < len(d.text) <= 240 and "\n" not in d.text and "\r" not in d.text for d in change.lines)
    if change.goal is not None:
        assert len(change.goal) <= 240 and "\n" not in change.goal
    if change.clear:
        assert not change.set_goal and change.lines is None and change.settle_through is None
    if change.settle_through is not None:
        assert change.settle_through <= NOW.replace(minute=2)
