"""Which environment a dashboard serves: the seam ``--demo`` plugs into.

The default serves the real machine: the process environment and the user's home. The demo
mode (added by the lead) returns a simulated home instead, with the same shape.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs
from cargento.board import default_home
from cargento.cli import Options

__all__ = ["Served", "serving_environment"]


@attrs.frozen(kw_only=True)
class Served:
    """The environment and home the plugins read, and what to do when serving ends."""

    env: Mapping[str, str]
    home: Path
    close: Callable[[], None] = lambda: None


def serving_environment(options: Options, env: Mapping[str, str] | None = None) -> Served:
    """The stores to serve for *options*: the real environment unless a mode replaces it.

    ``options.demo`` is reserved for the demo simulator; until it lands it serves the real
    environment too, and :func:`cargento_web.cli.serve_options` says so on stderr.
    """
    base = dict(os.environ if env is None else env)
    return Served(env=base, home=default_home(base))
