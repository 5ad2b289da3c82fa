"""Cargento's own state directory and the per-run state file the hook forwarders read.

State lives under ``~/.cargento`` (``CARGENTO_HOME`` relocates it). The running dashboard
writes ``cargento-<port>.json`` there; the forwarders read it to find the port and the
per-run capability, so nothing secret is stored between runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from pathlib import Path

from cargento.atomicfile import temporary_prefix
from cargento.liveness import pid_alive
from cargento.readers.jsonobject import read_json_object
from cargento.statepath import CAPABILITY_HEADER, HEALTH_CHALLENGE, state_dir_path

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CAPABILITY_HEADER",
    "HEALTH_CHALLENGE",
    "health_proof",
    "log_file",
    "read_state",
    "remove_stale_temporaries",
    "state_dir",
    "state_file",
    "temporary_prefix",
    "valid_challenge",
]

_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")


def valid_challenge(value: object) -> bool:
    """True for a challenge of 16 to 128 URL-safe characters."""
    return isinstance(value, str) and bool(_CHALLENGE.match(value))


def health_proof(capability: str, challenge: str) -> str:
    """The dashboard's answer to *challenge*: an HMAC-SHA256 keyed by the capability (hex).

    It proves the answering process holds the capability without revealing it.
    """
    return hmac.new(capability.encode(), b"cargento-health\0" + challenge.encode(), hashlib.sha256).hexdigest()


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$CARGENTO_HOME``, else ``~/.cargento`` (the user's home as the platform knows it)."""
    return Path(state_dir_path(os.environ if env is None else env))


def state_file(port: int, env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / f"cargento-{port}.json"


def log_file(port: int, env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / f"cargento-{port}.log"


def read_state(port: int, env: Mapping[str, str] | None = None, *, max_bytes: int = 64 * 1024) -> dict[str, Any] | None:
    """The running instance's state document (pid, port, host, started_at, url, log,
    capability), or ``None`` when there is none, it does not parse, or the path is not a
    regular file (a named pipe there must not hang ``--status`` or a hook: the open never
    blocks)."""
    return read_json_object(state_file(port, env), max_bytes=max_bytes)


_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def remove_stale_temporaries(directory: Path) -> list[Path]:
    """Remove temporary files a killed writer left in *directory* (their pid is not alive);
    returns what was removed. A live writer's files, and anything else, are left alone."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        found = _TEMPORARY.match(entry.name)
        if found is None or not entry.is_file(follow_symlinks=False) or pid_alive(int(found["pid"])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed
