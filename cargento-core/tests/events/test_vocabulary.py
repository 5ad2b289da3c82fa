"""Event lanes as plugin hooks: core parses every body through the lane a plugin declares, and
refines it through the plugin's own rules, with fake plugins only."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import attrs
import pytest
from cargento import hookimpl
from cargento.events import EventLane, EventVocabulary, LifecycleEvent, PayloadError, parse_event, parse_notification
from cargento.plugins import Registry, load_registry
from cargento.testing.fakes import FakeHarness

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LANE = EventLane(
    events={
        "Go": "turn_started",
        "Halt": "turn_stopped",
        "Ask": "permission",
        "Ran": "tool_finished",
        "Line": "status",
        "Moved": "store_moved",
    },
    adapter="the fake adapter",
    unnamed_event="Moved",
    status_fields=("agent_state",),
    receives_notify=True,
    reports_irreversible=True,
)


class Laned(FakeHarness):
    @hookimpl
    def event_lane(self) -> EventLane:
        return LANE

    @hookimpl
    def refine_event(self, event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
        if event.kind == "permission" and body.get("secret"):
            return attrs.evolve(event, gate_text=None)
        if event.kind == "notification" and isinstance(body.get("message"), str):
            return attrs.evolve(event, gate_text=body["message"][:50])
        return event


class Quiet(FakeHarness):
    @hookimpl
    def event_lane(self) -> EventLane:
        return EventLane(events={"Go": "turn_started"}, adapter="quiet")

    @hookimpl
    def refine_event(self, event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
        raise RuntimeError("refinement bug")


def registry() -> Registry:
    return load_registry(
        entry_points=False,
        extra=[("laned", Laned("laned")), ("quiet", Quiet("quiet")), ("plain", FakeHarness("plain"))],
    )


def vocabulary() -> EventVocabulary:
    return EventVocabulary.from_registry(registry())


def test_hook_event_lane_builds_one_table_from_the_plugins_that_declare_one() -> None:
    vocab = vocabulary()
    assert sorted(vocab.lanes) == ["laned", "quiet"]
    assert vocab.adapters() == {"laned": "the fake adapter", "quiet": "quiet"}
    assert vocab.notify_lane == "laned" and vocab.irreversible == frozenset({"laned"})


def test_hook_event_lane_drives_generic_parsing() -> None:
    vocab = vocabulary()
    event = parse_event(
        "laned", {"hook_event_name": "Go", "session_id": "s1", "prompt_id": "p1"}, received_at=T0, vocabulary=vocab
    )
    assert (event.kind, event.session_id, event.turn_key) == ("turn_started", "s1", "p1")
    ignored = parse_event(
        "laned", {"hook_event_name": "Unlisted", "session_id": "s1"}, received_at=T0, vocabulary=vocab
    )
    assert ignored.kind == "ignored"
    with pytest.raises(PayloadError) as caught:
        parse_event("plain", {"hook_event_name": "Go", "session_id": "s1"}, received_at=T0, vocabulary=vocab)
    assert caught.value.status == 404
    with pytest.raises(PayloadError) as caught:
        parse_event("quiet", {"session_id": "s1"}, received_at=T0, vocabulary=vocab)
    assert caught.value.status == 422, "no unnamed_event: an unnamed body is refused"


def test_an_unnamed_body_is_the_status_line_or_the_unnamed_event() -> None:
    vocab = vocabulary()
    status = parse_event("laned", {"agent_state": "working", "conversation_id": "c1"}, received_at=T0, vocabulary=vocab)
    assert (status.kind, status.name, status.harness, status.agent_state, status.session_id) == (
        "status",
        "Line",
        "laned",
        "working",
        "c1",
    )
    moved = parse_event("laned", {}, received_at=T0, vocabulary=vocab)
    assert (moved.kind, moved.name, moved.session_id) == ("store_moved", "Moved", None)


def test_hook_refine_event_applies_the_plugins_rules_and_a_fault_keeps_the_generic_event() -> None:
    reg = registry()
    vocab = EventVocabulary.from_registry(reg)
    body = {"hook_event_name": "Ask", "session_id": "s1", "tool_name": "Bash"}
    assert parse_event("laned", body, received_at=T0, vocabulary=vocab).gate_text == "asking to use Bash"
    assert parse_event("laned", {**body, "secret": True}, received_at=T0, vocabulary=vocab).gate_text is None
    generic = parse_event("quiet", {"hook_event_name": "Go", "session_id": "s1"}, received_at=T0, vocabulary=vocab)
    assert generic.kind == "turn_started"
    assert [f.hook for f in reg.faults["quiet"]] == ["refine_event"]


def test_a_notification_is_generic_until_the_plugin_words_it() -> None:
    vocab = vocabulary()
    event = parse_notification(
        "laned", {"session_id": "s1", "message": "Claude needs your permission"}, received_at=T0, vocabulary=vocab
    )
    assert (event.kind, event.gate_kind, event.gate_text) == (
        "notification",
        "permission",
        "Claude needs your permission",
    )
    question = parse_notification(
        "quiet",
        {"session_id": "s1", "notification_type": "elicitation_dialog", "message": "x"},
        received_at=T0,
        vocabulary=vocab,
    )
    assert (question.gate_kind, question.gate_text) == ("question", None)
