"""Live lifecycle events: the hub, its overlays, the ends store, irreversible-command reports
and desktop notifications (see :mod:`cargento.events.hub` for the surface the web app uses).

:func:`create_hub` builds the hub a dashboard run needs from its options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from cargento.events.hub import EventHub, Ingested, Overrule
from cargento.events.notifiers import MemoryNotifier, NoBackend, Notifier, detect_notifier
from cargento.events.payloads import EVENT_HARNESSES, LifecycleEvent, PayloadError
from cargento.statedir import state_dir

__all__ = [
    "EVENT_HARNESSES",
    "EventHub",
    "Ingested",
    "LifecycleEvent",
    "MemoryNotifier",
    "NoBackend",
    "Notifier",
    "Overrule",
    "PayloadError",
    "create_hub",
    "detect_notifier",
]


def create_hub(
    *,
    env: Mapping[str, str],
    clock: Callable[[], datetime],
    platform: str,
    no_events: bool = False,
    no_irreversible: bool = False,
    no_notify: bool = False,
    replay: bool = False,
    notifier: Notifier | None = None,
) -> EventHub:
    """The hub for one dashboard run.

    *no_events* accepts no lifecycle events and leaves the session-end store unread and
    unwritten (no capability is published either); notifications of store-read gates still
    work unless *no_notify*. *replay* (``--as-of``) raises no notifications: nobody waits on
    a moment in the past. The notification backend is detected once, here.
    """
    quiet = no_notify or replay
    if notifier is None:
        if quiet:
            notifier = NoBackend("notifications are off for this run (--no-notify)" if no_notify else "a replay (--as-of) raises no notifications", name="off")
        else:
            notifier = detect_notifier(platform, env)
    return EventHub(
        clock=clock,
        state_dir=state_dir(env),
        events=not no_events,
        irreversible=not no_irreversible,
        notifier=notifier,
        notify=not quiet,
    )
