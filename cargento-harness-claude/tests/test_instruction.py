"""The latest instruction line."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cargento_harness_claude.instruction import is_continuation, latest_instruction
from hypothesis import given
from hypothesis import strategies as st

AT = datetime(2026, 11, 30, 12, tzinfo=UTC)


def test_newest_substantive_prompt_is_the_instruction() -> None:
    found = latest_instruction([("old request", AT), ("Refactor the parser", AT + timedelta(minutes=1))])
    assert found is not None
    assert (found.text, found.source, found.at) == ("Refactor the parser", "prompt", AT + timedelta(minutes=1))


def test_a_continuation_defers_to_the_earlier_request() -> None:
    found = latest_instruction([("Refactor the parser", AT), ("proceed", AT + timedelta(minutes=5))])
    assert found is not None
    assert (found.text, found.source, found.at) == ("Refactor the parser", "earlier prompt", AT)


def test_only_continuations_in_sight_is_absent() -> None:
    assert latest_instruction([("ok", AT), ("Continue.", AT)]) is None
    assert latest_instruction([]) is None


def test_continuations_and_commands() -> None:
    assert is_continuation("Proceed!")
    assert is_continuation("yes, go ahead")
    assert is_continuation("<command-name>/compact</command-name>")
    assert not is_continuation("<command-name>/review</command-name><command-args>PR 12</command-args>")
    assert not is_continuation("continue with the migration of the users table")


@given(st.lists(st.tuples(st.text(max_size=40), st.none()), max_size=6))
def test_never_raises_and_never_names_a_continuation(prompts: list[tuple[str, None]]) -> None:
    found = latest_instruction(prompts)
    if found is not None:
        assert not is_continuation(found.text)
