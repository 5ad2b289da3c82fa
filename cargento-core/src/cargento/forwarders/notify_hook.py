"""Forward a Claude Code Notification or SessionEnd hook payload to the running dashboard.

Usage (a hook command in ``~/.claude/settings.json``; the payload arrives on stdin)::

    cargento-notify-hook [URL]
    python -m cargento.forwarders.notify_hook [URL]

The URL defaults to ``http://127.0.0.1:<CARGENTO_PORT or 4553>/api/notify``; pass one for a
non-default port. Anything but a loopback ``http://`` URL is refused: nothing is sent. The
capability is read from the state file of the URL's port. For ``/api/notify`` only the
notification's fields are sent; for any other path (the older Antigravity status line
pointed at ``/api/usage``) the document is forwarded as it came. Prints nothing and exits 0
in every case.
"""

from __future__ import annotations

import sys
import time

from cargento.forwarders._post import (
    DEFAULT_PORT,
    Target,
    capability_for,
    compact_json,
    environ,
    loopback_target,
    port_from,
    post,
    proven,
    read_payload,
    stdin_bytes,
)
from cargento.forwarders.slim import TERMINAL_FIELD, slim_hook_payload, terminal_identity

# ``typing`` and ``collections.abc`` only for the type checker: the hook forwarders import
# this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO

__all__ = ["main"]


def main(
    argv: Sequence[str] | None = None, *, stdin: IO[bytes] | None = None, env: Mapping[str, str] | None = None
) -> int:
    started = time.time()
    args = list(sys.argv[1:] if argv is None else argv)
    env = environ() if env is None else env
    url = args[0] if args else None
    target = loopback_target(url) if url is not None else Target(port_from(None, env) or DEFAULT_PORT, "/api/notify")
    if target is None:
        print(f"cargento-notify-hook: refusing to send anywhere but loopback ({url!r})", file=sys.stderr)
        return 0
    capability = capability_for(target.port, env)
    if capability is None:
        return 0
    payload = read_payload(stdin if stdin is not None else stdin_bytes())
    if not isinstance(payload, dict):
        return 0
    document = slim_hook_payload(payload) if target.path.split("?")[0].rstrip("/") == "/api/notify" else payload
    terminal = terminal_identity(env)
    if terminal is not None:
        document[TERMINAL_FIELD] = terminal
    if proven(target.port, capability, env):
        post(target, compact_json(document), capability, hook_at=started)
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
