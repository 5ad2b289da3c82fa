"""Cargento's own state directory and the per-run state file the hook forwarders read.

State lives under ``~/.cargento`` (``CARGENTO_HOME`` relocates it). The running dashboard
writes ``cargento-<port>.json`` there; the forwarders read it to find the port and the
per-run capability, so nothing secret is stored between runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cargento.platforms import home_from
from cargento.readers.jsonobject import read_json_object

__all__ = ["CAPABILITY_HEADER", "log_file", "read_state", "state_dir", "state_file"]

#: The header a forwarder sends the per-run capability in.
CAPABILITY_HEADER = "X-Cargento-Capability"


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$CARGENTO_HOME``, else ``~/.cargento`` (the user's home as the platform knows it)."""
    env = os.environ if env is None else env
    value = env.get("CARGENTO_HOME", "").strip()
    if value:
        return Path(value).expanduser()
    return home_from(env) / ".cargento"


def state_file(port: int, env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / f"cargento-{port}.json"


def log_file(port: int, env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / f"cargento-{port}.log"


def read_state(port: int, env: Mapping[str, str] | None = None, *, max_bytes: int = 64 * 1024) -> dict[str, Any] | None:
    """The running instance's state document (pid, port, host, started_at, url, log,
    capability), or ``None`` when there is none or it does not parse."""
    return read_json_object(state_file(port, env), max_bytes=max_bytes)
