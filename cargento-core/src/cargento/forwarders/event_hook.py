"""Forward one harness lifecycle hook to the running dashboard.

Usage (a hook command; the payload arrives on stdin)::

    cargento-event-hook <harness> [port]
    python -m cargento.forwarders.event_hook <harness> [port]

The harness name is required (``claude``, ``codex``, ``gemini``, ``antigravity``); the port
defaults to ``CARGENTO_PORT`` or 4553. It POSTs the payload's lifecycle fields to
``http://127.0.0.1:<port>/api/events/<harness>`` with this run's capability, prints nothing,
and exits 0 in every case, so it never answers a gate (a Codex PermissionRequest hook that
prints nothing and exits 0 has no opinion) and never fails a hook.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Mapping, Sequence
from typing import IO

import orjson

from cargento.forwarders._post import Target, capability_for, environ, port_from, post, read_payload, stdin_bytes
from cargento.forwarders.slim import slim_hook_payload

__all__ = ["main"]

_HARNESS = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
USAGE = "usage: cargento-event-hook <harness> [port]  (the harness name is required)"


def main(argv: Sequence[str] | None = None, *, stdin: IO[bytes] | None = None, env: Mapping[str, str] | None = None) -> int:
    started = time.time()
    args = list(sys.argv[1:] if argv is None else argv)
    env = environ() if env is None else env
    if not args or not _HARNESS.match(args[0]):
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
    body = orjson.dumps(slim_hook_payload(payload))
    post(Target(port, f"/api/events/{harness}"), body, capability, hook_at=started)
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
