"""The per-session ``workspace.yaml``: the session's name and whether the user chose it.

Copilot writes a flat mapping of one-line scalars (``name: 'SCENARIO-D: write hi'``,
``user_named: false``, ``cwd: /w/proj``). Only those one-line scalars are read, with YAML's
plain, single-quoted and double-quoted forms; anything else is left unread rather than
guessed at. The file is small; at most 64 KiB of it is read.
"""

from __future__ import annotations

import json
import os

import attrs
from cargento.readers import open_regular
from cargento.sharedmethods import shared_methods

__all__ = ["Workspace", "parse_workspace", "read_workspace"]

MAX_BYTES = 64 * 1024


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Workspace:
    """What ``workspace.yaml`` says, each field ``None`` where it does not say it."""

    name: str | None = None
    user_named: bool | None = None
    cwd: str | None = None


def _scalar(raw: str) -> str | None:
    value = raw.strip()
    if not value or value in ("~", "null", "|", ">", "|-", ">-"):
        return None
    if value.startswith("'"):
        if len(value) < 2 or not value.endswith("'"):
            return None
        return value[1:-1].replace("''", "'")
    if value.startswith('"'):
        try:
            decoded = json.loads(value)
        except ValueError:
            return None
        return decoded if isinstance(decoded, str) else None
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return value or None


def parse_workspace(text: str) -> Workspace:
    """Parse the one-line top-level scalars of a ``workspace.yaml`` text."""
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        if not line or line[0] in " \t#-":
            continue
        key, sep, rest = line.partition(":")
        if not sep or key not in ("name", "user_named", "cwd") or key in found:
            continue
        found[key] = _scalar(rest)
    flag = found.get("user_named")
    return Workspace(
        name=found.get("name"),
        user_named=True if flag == "true" else False if flag == "false" else None,
        cwd=found.get("cwd"),
    )


def read_workspace(directory: str | os.PathLike[str]) -> Workspace:
    """Read ``workspace.yaml`` in a session directory; an absent or unreadable one says nothing."""
    try:
        with open_regular(os.path.join(os.fspath(directory), "workspace.yaml")) as fh:
            data = fh.read(MAX_BYTES)
    except OSError:
        return Workspace()
    return parse_workspace(data.decode("utf-8", "replace"))
