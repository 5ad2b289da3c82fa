"""The dashboard server's runtime: the event hub and what it keeps for one run.

* :mod:`~cargento_web.runtime.hub`: live lifecycle events in, overlays and notifications out;
* :mod:`~cargento_web.runtime.alerts`: when a notification is raised, retried or withdrawn;
* :mod:`~cargento_web.runtime.notifiers`: the desktop notification backends;
* :mod:`~cargento_web.runtime.stores`: the files the server writes (session ends, deliveries);
* :mod:`~cargento_web.runtime.reports`: the irreversible-command reports of this run;
* :mod:`~cargento_web.runtime.record`: the session page's wording of all of it.

The event model, the generic parser and the precedence rules are core's
(:mod:`cargento.events`); :func:`create_hub` builds the hub a dashboard run needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from cargento.events.vocabulary import EventVocabulary
from cargento.quiethours import resolve_window
from cargento.statedir import state_dir

from cargento_web.runtime.hub import EventHub, Ingested, Overrule
from cargento_web.runtime.notifiers import MemoryNotifier, NoBackend, Notifier, detect_notifier
from cargento_web.runtime.record import EVENTS_OFF, EVENTS_OFF_REPLAY

__all__ = [
    "EventHub",
    "Ingested",
    "MemoryNotifier",
    "NoBackend",
    "Notifier",
    "Overrule",
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
    vocabulary: EventVocabulary | None = None,
    quiet_hours: str | None = None,
    no_quiet_hours: bool = False,
    no_focus: bool = False,
) -> EventHub:
    """The hub for one dashboard run.

    *no_events* accepts no lifecycle events and leaves the session-end store unread and
    unwritten (no capability is published either); notifications of store-read gates still
    work unless *no_notify*. *replay* (``--as-of``) raises no notifications and takes no
    events, as *no_events* (saying why in its own words): nobody waits on a moment in the
    past, and a live event says nothing about it; it reads the session ends recorded up to
    that moment and writes none. The notification backend is detected once, here. *vocabulary* is
    the lanes of the run's registry (the installed plugins' when omitted). Quiet hours
    resolve from *quiet_hours* (``--quiet-hours``), ``CARGENTO_QUIET_HOURS`` or the
    ``quiet_hours`` file (none with *no_quiet_hours*); *no_focus* records no terminal identity.
    """
    quiet = no_notify or replay
    # A replay shows a moment already past: it takes no live events (and publishes no
    # capability, so no forwarder posts to it), and reads the session-end store as it stood
    # at that moment, writing nothing.
    events_off = EVENTS_OFF if no_events or not replay else EVENTS_OFF_REPLAY
    if notifier is None:
        if quiet:
            notifier = NoBackend(
                "notifications are off for this run (--no-notify)"
                if no_notify
                else "a replay (--as-of) raises no notifications",
                name="off",
            )
        else:
            notifier = detect_notifier(platform, env)
    return EventHub(
        clock=clock,
        state_dir=state_dir(env),
        events=not (no_events or replay),
        events_off=events_off,
        replay=replay and not no_events,
        irreversible=not no_irreversible,
        notifier=notifier,
        notify=not quiet,
        vocabulary=vocabulary,
        quiet=resolve_window(quiet_hours, env, off=no_quiet_hours),
        record_terminals=not no_focus,
    )
