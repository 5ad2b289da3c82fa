"""What each harness's live events mean, as its plugin declares it: the event lanes.

A harness plugin that forwards lifecycle events implements :func:`cargento.hookspecs.event_lane`
and returns an :class:`EventLane`: which of its hook payload names map to which of core's
:data:`~cargento.events.payloads.EventKind`\\ s, what adapter feeds the lane, and the few flags
that used to be per-harness branches in core (which lane receives ``POST /api/notify``, which
lanes' finished shell commands feed the irreversible-command reports, how a body that names no
event is read). Rules a table cannot say (a gate that carries no text, a prompt's own wording)
go in the optional :func:`cargento.hookspecs.refine_event` hook.

:class:`EventVocabulary` is every loaded plugin's lane, built once per registry so the event
path looks a lane up in one dictionary access.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import attrs

from cargento.events.payloads import EventKind, LifecycleEvent
from cargento.sharedmethods import shared_methods

if TYPE_CHECKING:
    from cargento.plugins import Registry

__all__ = ["EventLane", "EventVocabulary", "default_vocabulary"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class EventLane:
    """One harness's event vocabulary: how its hook payloads map to core's lifecycle events.

    The lane is served at ``POST /api/events/<harness key>``.
    """

    #: The harness's own event name (the body's ``hook_event_name`` or ``event``) to core's
    #: kind. A name missing here is accepted and ignored (kind ``ignored``).
    events: Mapping[str, EventKind]
    #: One line naming what feeds the lane (``"Codex hooks (codex-hooks.json)"``), for
    #: ``--diagnose`` and the documentation.
    adapter: str
    #: The event name to read a body as when it names none (``None``: such a body is refused
    #: with 422). Antigravity's plugin hooks post an unnamed "the store moved" nudge.
    unnamed_event: str | None = None
    #: Fields whose presence marks an unnamed body as the lane's status-line push instead
    #: (read as the event name mapped to kind ``status``).
    status_fields: tuple[str, ...] = ()
    #: This lane receives ``POST /api/notify`` (the Notification/SessionEnd forwarder of the
    #: specification's path 2). At most one loaded lane should say so; the first by harness
    #: key wins.
    receives_notify: bool = False
    #: The shell commands of this lane's ``tool_finished`` events feed the irreversible-
    #: command reports (the harness reports finished commands faithfully).
    reports_irreversible: bool = False

    def name_of_unnamed(self, body: Mapping[str, Any]) -> str | None:
        """The event name an unnamed *body* stands for on this lane, or ``None``."""
        if self.status_fields and any(field in body for field in self.status_fields):
            return next((name for name, kind in self.events.items() if kind == "status"), self.unnamed_event)
        return self.unnamed_event


class EventVocabulary:
    """Every loaded plugin's :class:`EventLane`, with the registry to refine events through.

    Build it once per registry (:meth:`from_registry`); every lookup on the event path is then
    one dictionary access.
    """

    def __init__(self, lanes: Mapping[str, EventLane], registry: Registry | None = None) -> None:
        self.lanes: dict[str, EventLane] = dict(lanes)
        self._registry = registry
        #: The lane ``POST /api/notify`` feeds, or ``None`` when no loaded lane takes it.
        self.notify_lane: str | None = next((k for k in sorted(self.lanes) if self.lanes[k].receives_notify), None)
        #: Harnesses whose finished shell commands feed the irreversible-command reports.
        self.irreversible: frozenset[str] = frozenset(k for k, lane in self.lanes.items() if lane.reports_irreversible)
        self._refiners: frozenset[str] = frozenset(
            k for k in self.lanes if registry is not None and registry.implements(k, "refine_event")
        )

    @classmethod
    def from_registry(cls, registry: Registry) -> EventVocabulary:
        """The lanes every loaded plugin declares (a plugin whose hook fails has none)."""
        lanes: dict[str, EventLane] = {}
        for key in registry.loaded():
            if not registry.implements(key, "event_lane"):
                continue
            result = registry.call(key, "event_lane")
            value = getattr(result, "value", None)
            if isinstance(value, EventLane):
                lanes[key] = value
        return cls(lanes, registry)

    def lane(self, harness: str) -> EventLane | None:
        return self.lanes.get(harness)

    def refine(self, event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
        """*event* as its plugin's :func:`~cargento.hookspecs.refine_event` rewrites it; the
        generic reading when the plugin has no such hook or the hook fails."""
        if event.harness not in self._refiners or self._registry is None:
            return event
        result = self._registry.call(event.harness, "refine_event", event=event, body=body)
        value = getattr(result, "value", None)
        if isinstance(value, LifecycleEvent) and value.harness == event.harness:
            return value
        return event

    def adapters(self) -> dict[str, str]:
        """Harness key to the adapter that feeds its lane."""
        return {k: lane.adapter for k, lane in sorted(self.lanes.items())}

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.lanes))

    def __len__(self) -> int:
        return len(self.lanes)


@lru_cache(maxsize=1)
def default_vocabulary() -> EventVocabulary:
    """The lanes of the plugins installed in this environment (loaded once per process), for
    callers that parse events without a registry of their own."""
    import os

    from cargento.plugins import load_registry

    return EventVocabulary.from_registry(load_registry(env=dict(os.environ)))
