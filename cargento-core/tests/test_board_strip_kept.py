"""The harness strip across builds (cargento.board.strip.HarnessStrip): a harness whose entry,
count and newest fault stood publishes the very entry of the last build; anything that moved
is published afresh, as :func:`finish_strip` makes it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import attrs
from cargento.board import BoardBuilder
from cargento.board.revision import content_hash, harness_digest
from cargento.board.strip import HarnessStrip, finish_strip
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _world() -> tuple[FakeHarness, FakeHarness, BoardBuilder]:
    """Two fake harnesses and a builder over them."""
    one = FakeHarness("one", [FakeSession("a1"), FakeSession("a2")])
    two = FakeHarness("two", [FakeSession("b1")])
    registry = load_registry(entry_points=False, extra=[("one", one), ("two", two)])
    builder = BoardBuilder(registry, env={"HOME": "/home/u"}, clock=lambda: NOW, processes=StaticProcesses())
    return one, two, builder


def test_an_entry_that_stood_is_the_entry_published_last_time() -> None:
    registry = _world()[2].registry
    entries = [_world()[2].build().harnesses[0]]
    strip = HarnessStrip()
    first, digests = strip.finish(entries, {"one": 2}, registry)
    again, digests_again = strip.finish(entries, {"one": 2}, registry)
    assert again[0] is first[0] and digests_again == digests
    assert first == finish_strip(entries, {"one": 2}, registry)
    counted, _ = strip.finish(entries, {"one": 3}, registry)
    assert counted[0] is not first[0] and counted[0].sessions == 3
    moved = [attrs.evolve(entries[0], problems=("cannot list /x: token=abcdefgh1234",))]
    redacted, _ = strip.finish(moved, {"one": 3}, registry)
    assert redacted[0].problems == ("cannot list /x: token=…REDACTED",)
    assert redacted == finish_strip(moved, {"one": 3}, registry)


def test_a_new_fault_is_published_though_the_entry_stood() -> None:
    registry = _world()[2].registry
    entry = _world()[2].build().harnesses[0]
    strip = HarnessStrip()
    before, _ = strip.finish([entry], {entry.key: 1}, registry)
    registry.record_fault(entry.key, "read_session", "the store is locked", kind="expected")
    after, _ = strip.finish([entry], {entry.key: 1}, registry)
    assert before[0].error is None and after[0].error == "read_session: the store is locked"


def test_the_builder_keeps_the_strip_of_harnesses_that_stood_and_hashes_as_before() -> None:
    _, _, builder = _world()
    first = builder.build(now=NOW)
    second = builder.build(now=NOW + timedelta(seconds=0.5), changes={})
    by_key = {h.key: h for h in first.harnesses}
    assert all(h is by_key[h.key] for h in second.harnesses), "counts and faults stood: the same entries"
    assert content_hash(second, [hash(0)]) == content_hash(
        second, [hash(0)], [harness_digest(h) for h in second.harnesses]
    )
    assert second.revision == first.revision, "the same content: no new revision"
