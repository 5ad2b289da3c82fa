"""Live lifecycle events, the part every plugin shares: the event model
(:class:`LifecycleEvent`, :data:`EventKind`), generic parsing through the lanes the plugins
declare (:class:`EventVocabulary`), the pure precedence rules that turn events into state
(:mod:`cargento.events.lanes`), notification and irreversible-command classification, and the
hook-target records and settings-merge engine ``cargento hooks`` uses.

The server's runtime (the event hub, alerts, notifiers and the stores a dashboard writes) is
:mod:`cargento_web.runtime`.
"""

from __future__ import annotations

from cargento.events.payloads import EventKind, LifecycleEvent, PayloadError, parse_event, parse_notification
from cargento.events.targets import HookTarget
from cargento.events.vocabulary import EventLane, EventVocabulary

__all__ = [
    "EventKind",
    "EventLane",
    "EventVocabulary",
    "HookTarget",
    "LifecycleEvent",
    "PayloadError",
    "parse_event",
    "parse_notification",
]
