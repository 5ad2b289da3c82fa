"""Antigravity's status-line command: forward lifecycle state and the quota block.

Usage (``"statusLine": {"command": "cargento-statusline-hook", "enabled": true}``)::

    cargento-statusline-hook [port]
    python -m cargento.forwarders.statusline_hook [port]

The status line fires many times a turn with the whole status document (which carries the
account email and the transcript path). This sends only ``agent_state``, the conversation id
and the quota block to ``/api/events/antigravity``, and keeps one small memo per conversation
in Cargento's state directory (``statusline-<conversation>.json``) so it posts once per change
of state or quota, plus a refresh while Working (the Working claim carries a deadline). It
prints nothing (the status line stays blank) and exits 0 in every case.
"""

from __future__ import annotations

import os
import sys
import time

# The same class as ``hashlib.blake2b``, without the OpenSSL load ``hashlib`` costs at import.
from _blake2 import blake2b

from cargento.forwarders._post import (
    Target,
    capability_for,
    compact_json,
    environ,
    port_from,
    post,
    proven,
    read_object,
    read_payload,
    stdin_bytes,
)
from cargento.forwarders.slim import slim_status_line
from cargento.statepath import state_dir_path

# ``typing`` and ``collections.abc`` only for the type checker: the status line runs this many
# times a turn, and each import is time on it (see docs/benchmark.md, "Whole processes").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO, Any

__all__ = ["MEMO_PREFIX", "main"]

MEMO_PREFIX = "statusline-"
#: While Working, re-post an unchanged state this often so the deadline does not lapse.
REFRESH_S = 30.0
#: Memos untouched this long are swept when a new one is made.
MEMO_LIFE_S = 86400.0
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _memo_path(directory: str, conversation: str | None) -> str:
    key = "".join(c if c in _SAFE else "_" for c in conversation)[:80] if conversation else "none"
    return os.path.join(directory, f"{MEMO_PREFIX}{key}.json")


def _read_memo(path: str) -> dict[str, Any]:
    return read_object(path, 4096) or {}


def _write_memo(path: str, memo: Mapping[str, Any], now: float) -> None:
    from pathlib import Path  # only when a memo is written (after a post)

    from cargento.atomicfile import write_atomic

    fresh = not os.path.exists(path)
    try:
        write_atomic(Path(path), compact_json(dict(memo)), durable=False)
    except OSError:
        return
    if fresh:
        _sweep(os.path.dirname(path), now)


def _sweep(directory: str, now: float) -> None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(MEMO_PREFIX) and entry.name.endswith(".json"):
            try:
                if now - entry.stat().st_mtime > MEMO_LIFE_S:
                    os.unlink(entry.path)
            except OSError:
                continue


def should_post(memo: Mapping[str, Any], state: str | None, quota_hash: str, now: float) -> bool:
    """Post when the state or the quota changed, or to refresh a standing Working."""
    if memo.get("state") != state or memo.get("quota") != quota_hash:
        return True
    last = memo.get("at")
    stale = not isinstance(last, int | float) or now - float(last) >= REFRESH_S
    return state in ("working", "tool_use") and stale


def main(
    argv: Sequence[str] | None = None, *, stdin: IO[bytes] | None = None, env: Mapping[str, str] | None = None
) -> int:
    started = time.time()
    args = list(sys.argv[1:] if argv is None else argv)
    env = environ() if env is None else env
    port = port_from(args[0] if args else None, env)
    if port is None:
        return 0
    capability = capability_for(port, env)
    if capability is None:
        return 0
    payload = read_payload(stdin if stdin is not None else stdin_bytes())
    if not isinstance(payload, dict):
        return 0
    document = slim_status_line(payload)
    conversation = document.get("conversation_id") or document.get("session_id")
    state = document.get("agent_state")
    quota_hash = blake2b(compact_json(document.get("quota"), sort_keys=True), digest_size=8).hexdigest()
    memo_path = _memo_path(state_dir_path(env), conversation if isinstance(conversation, str) else None)
    if not should_post(_read_memo(memo_path), state if isinstance(state, str) else None, quota_hash, started):
        return 0
    if not proven(port, capability, env):
        return 0
    status = post(Target(port, "/api/events/antigravity"), compact_json(document), capability, hook_at=started)
    if status is not None and 200 <= status < 300:
        _write_memo(memo_path, {"state": state, "quota": quota_hash, "at": started}, started)
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
