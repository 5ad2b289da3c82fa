"""Parser-level property tests: no record shape makes the Droid parsers raise."""

from __future__ import annotations

from typing import Any

from cargento_harness_droid.records import header_of, message_of
from cargento_harness_droid.transcript import Transcript
from hypothesis import given
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
keys = st.sampled_from(["type", "id", "message", "timestamp", "sessionTitle", "title", "cwd", "role", "content"])
records = st.dictionaries(keys, json_values, max_size=6) | st.fixed_dictionaries(
    {
        "type": st.just("message"),
        "timestamp": json_values,
        "message": st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "x"]), "content": json_values}),
    }
)


@given(st.lists(records, max_size=12))
def test_any_records_fold_without_raising(batch: list[dict[str, Any]]) -> None:
    transcript = Transcript()
    for record in batch:
        header_of(record)
        message_of(record)
        transcript.apply(record)
    transcript.clock.evidence(boundaries_recorded=False)


@given(st.text(max_size=200))
def test_string_content_is_the_text(text: str) -> None:
    message = message_of({"type": "message", "message": {"role": "user", "content": text}})
    assert message is not None and message.text == text and not message.tool_results
