"""Which environment a dashboard serves: the real machine, or the ``--demo`` home.

The default serves the real machine: the process environment and the user's home. ``--demo``
serves a temporary home in which every harness plugin's ``simulate`` hook writes live stores
(:class:`cargento.demo.Demo`); every relocation variable points there, so the user's own
stores are never read or touched, and the home is removed when serving ends. The demo's
scripted hook bodies (a simulation's ``drain_events``) go to the dashboard's event hub once
:attr:`Served.forward_events` connects it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
from cargento.cli import Options
from cargento.platforms import home_from
from cargento.sharedrepr import shared_repr

__all__ = ["Served", "serving_environment"]


@shared_repr
@attrs.frozen(kw_only=True, eq=False, repr=False)
class Served:
    """The environment and home the plugins read, and what to do when serving ends."""

    env: Mapping[str, str]
    home: Path
    close: Callable[[], None] = lambda: None
    #: For the demo: connect ``sink(harness_key, body)`` to receive its scripted hook bodies.
    forward_events: Callable[[Callable[[str, Mapping[str, Any]], object]], None] | None = None


def serving_environment(options: Options, env: Mapping[str, str] | None = None) -> Served:
    """The stores to serve for *options*: the real environment, or the demo's."""
    base = dict(os.environ if env is None else env)
    if options.demo:
        return demo_environment(base)
    return Served(env=base, home=home_from(base))


def demo_environment(base: Mapping[str, str]) -> Served:
    """Start the demo simulations in a fresh temporary home and serve that."""
    from cargento.demo import Demo
    from cargento.plugins import load_registry

    demo = Demo(load_registry(env=base), base_env=base)
    demo.start()
    live = ", ".join(sorted(demo.simulations)) or "none"
    print(
        f"cargento: demo home {demo.home} (removed on exit); simulated harnesses: {live}", file=sys.stderr, flush=True
    )
    for key, fault in sorted(demo.faults.items()):
        print(f"cargento: demo for {key} failed: {fault}", file=sys.stderr)
    return Served(env=demo.env, home=demo.home, close=demo.stop, forward_events=demo.forward_events)
