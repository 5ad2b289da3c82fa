"""The per-run state file ``cargento-<port>.json`` in Cargento's own state directory."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from cargento.atomicfile import write_atomic
from cargento.statedir import read_state, state_file

__all__ = ["remove_state", "write_state"]


def write_state(port: int, document: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """Write the state document atomically (a temporary file renamed over the old one).

    Not synced to disk: the file describes a running process and is removed when it ends, so
    after a crash it names a pid that is gone whether it reached the disk or not (readers check
    the pid and the port). Its ``fsync`` cost every start 0.5 to 12 ms before the first board;
    the rename alone keeps a reader from ever seeing half of it."""
    target = state_file(port, env)
    write_atomic(target, orjson.dumps(dict(document), option=orjson.OPT_INDENT_2) + b"\n", durable=False)
    return target


def remove_state(port: int, env: Mapping[str, str] | None = None, *, pid: int | None = None) -> bool:
    """Remove the state file; with *pid*, only when it still records that process."""
    if pid is not None:
        current = read_state(port, env)
        if current is not None and current.get("pid") != pid:
            return False
    try:
        state_file(port, env).unlink()
    except FileNotFoundError:
        return False
    return True
