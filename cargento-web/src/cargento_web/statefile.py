"""The per-run state file ``cargento-<port>.json`` in Cargento's own state directory."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
from cargento.statedir import read_state, state_dir, state_file, temporary_prefix

__all__ = ["remove_state", "write_state"]


def write_state(port: int, document: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """Write the state document atomically (a temporary file renamed over the old one)."""
    directory = state_dir(env)
    directory.mkdir(parents=True, exist_ok=True)
    target = state_file(port, env)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(target.name), suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(orjson.dumps(dict(document), option=orjson.OPT_INDENT_2) + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
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
