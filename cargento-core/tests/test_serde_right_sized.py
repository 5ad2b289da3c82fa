"""``serde.right_sized``: JSON bytes a store keeps cost their length, not orjson's buffer."""

from __future__ import annotations

import tracemalloc

import orjson
from cargento import serde
from hypothesis import given
from hypothesis import strategies as st

RECORD = {
    "harness": "claude",
    "sid": "5f1c2e6a-0000-4000-8000-000000000001",
    "kind": "state",
    "at": "2026-12-01T20:34:34Z",
}


def _traced_per_item(make: object, count: int = 500) -> float:
    assert callable(make)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [make() for _ in range(count)]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(kept) == count
    return grown / count


def test_a_small_record_kept_costs_about_its_length() -> None:
    length = len(orjson.dumps(RECORD))
    per = _traced_per_item(lambda: serde.right_sized(orjson.dumps(RECORD)))
    assert per < length + 128, f"{per:.0f} bytes held for a {length}-byte record"


def test_a_long_document_kept_costs_about_its_length() -> None:
    doc = {"sessions": [{"id": f"{i:036d}", "detail": "running the tests " * 4, "n": i} for i in range(400)]}
    length = len(orjson.dumps(doc))
    per = _traced_per_item(lambda: serde.right_sized(orjson.dumps(doc)), count=5)
    assert per < length * 1.02 + 128, f"{per:.0f} bytes held for a {length}-byte document"


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
        lambda c: st.lists(c) | st.dictionaries(st.text(), c),
    )
)
def test_the_bytes_are_the_same(value: object) -> None:
    raw = orjson.dumps(value)
    kept = serde.right_sized(raw)
    assert kept == raw and type(kept) is bytes
