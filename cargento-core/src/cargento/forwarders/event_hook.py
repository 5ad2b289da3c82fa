"""Forward one harness lifecycle hook to the running dashboard.

Usage (a hook command; the payload arrives on stdin)::

    cargento-event-hook <harness> [port] [--event NAME]
    python -m cargento.forwarders.event_hook <harness> [port] [--event NAME]

The harness name is required (``claude``, ``codex``, ``gemini``, ``antigravity``); the port
defaults to ``CARGENTO_PORT`` or 4553. ``--event`` names the hook event for a harness whose
payload may not carry ``hook_event_name`` (Antigravity's plugin hooks). It POSTs the payload's lifecycle fields to
``http://127.0.0.1:<port>/api/events/<harness>`` with this run's capability, prints nothing,
and exits 0 in every case, so it never answers a gate (a Codex PermissionRequest hook that
prints nothing and exits 0 has no opinion) and never fails a hook.
"""

from __future__ import annotations

import sys
import time

from cargento.forwarders._post import (
    Target,
    capability_for,
    compact_json,
    environ,
    port_from,
    post,
    proven,
    read_payload,
    stdin_bytes,
)
from cargento.forwarders.slim import TERMINAL_FIELD, slim_hook_payload, terminal_identity

# ``typing`` and ``collections.abc`` only for the type checker: the hook forwarders import
# this module on every hook (and :mod:`re` is not imported for the two name checks below).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO

__all__ = ["main"]

USAGE = "usage: cargento-event-hook <harness> [port] [--event NAME]  (the harness name is required)"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_LETTERS = _LOWER + _LOWER.upper()
_DIGITS = "0123456789"


def _name(text: str, first: str, rest: str, most: int) -> bool:
    """*text* is one character of *first*, then at most *most* - 1 of *rest* (ASCII only)."""
    return 0 < len(text) <= most and text[0] in first and not text[1:].strip(rest)


def valid_harness(text: str) -> bool:
    """A harness name: a lowercase letter, then 1 to 31 lowercase letters, digits or ``-``."""
    return len(text) >= 2 and _name(text, _LOWER, _LOWER + _DIGITS + "-", 32)


def valid_event(text: str) -> bool:
    """An event name: a letter, then up to 63 letters, digits, ``_``, ``.`` or ``-``."""
    return _name(text, _LETTERS, _LETTERS + _DIGITS + "_.-", 64)


def main(
    argv: Sequence[str] | None = None, *, stdin: IO[bytes] | None = None, env: Mapping[str, str] | None = None
) -> int:
    started = time.time()
    args = list(sys.argv[1:] if argv is None else argv)
    env = environ() if env is None else env
    event_name: str | None = None
    if "--event" in args:
        at = args.index("--event")
        event_name = args[at + 1] if at + 1 < len(args) and valid_event(args[at + 1]) else None
        del args[at : at + 2]
    if not args or not valid_harness(args[0]):
        print(USAGE, file=sys.stderr)
        return 0
    harness = args[0]
    port = port_from(args[1] if len(args) > 1 else None, env)
    if port is None:
        print(f"cargento-event-hook: {args[1]!r} is not a port from 1 to 65535", file=sys.stderr)
        return 0
    capability = capability_for(port, env)
    if capability is None:
        return 0  # no dashboard here, or one run with --no-events: stay silent
    payload = read_payload(stdin if stdin is not None else stdin_bytes())
    if not isinstance(payload, dict):
        return 0
    document = slim_hook_payload(payload)
    if event_name is not None and "hook_event_name" not in document:
        document["hook_event_name"] = event_name
    terminal = terminal_identity(env)
    if terminal is not None:
        document[TERMINAL_FIELD] = terminal
    body = compact_json(document)
    if proven(port, capability, env):
        post(Target(port, f"/api/events/{harness}"), body, capability, hook_at=started)
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
