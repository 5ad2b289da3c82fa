"""What a Spacedock first officer's ``spacedock status --boot`` command output names.

A harness reads this only from *command output* (a tool result answering a call that ran the
boot command), never from conversation text, and hands it to core as a
:class:`~cargento.models.SpacedockBoot` on the session's reading. The output must be exactly
one complete JSON object; anything else is not a boot result. Only absolute directories are
kept, and the dispatchable list is a snapshot of what was ready to move at boot.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import orjson

from cargento.models import Dispatchable, SpacedockBoot

__all__ = ["BOOT_COMMAND", "MAX_BOOT_BYTES", "is_boot_command", "parse_boot"]

#: A shell command that runs ``spacedock status ... --boot``.
BOOT_COMMAND = re.compile(r"(?:spacedock|SPACEDOCK_BIN)[^\n|;&]*\bstatus\b[^\n|;&]*--boot\b")
#: A boot result longer than this is not read.
MAX_BOOT_BYTES = 512 * 1024
#: At most this many directories and dispatchable entities are kept from one boot.
MAX_ITEMS = 64

_WORKFLOW_KEYS = ("workflow_dir", "workflow_dirs", "workflows")
_ENTITY_KEYS = ("entity_dir", "entity_dirs")
_BOOT_KEYS = (*_WORKFLOW_KEYS, *_ENTITY_KEYS, "state_backend", "dispatchable")
_ABSOLUTE = re.compile(r"^(?:/|\\\\|[A-Za-z]:[\\/])")


def is_boot_command(command: object) -> bool:
    """Whether *command* (a shell command line) runs ``spacedock status --boot``."""
    return isinstance(command, str) and BOOT_COMMAND.search(command[:4096]) is not None


def _dirs(value: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for key in keys:
        item = value.get(key)
        for one in item if isinstance(item, list) else [item]:
            if isinstance(one, dict):
                one = one.get("dir") or one.get("path") or one.get("workflow_dir")
            if isinstance(one, str) and _ABSOLUTE.match(one) and one not in found and len(found) < MAX_ITEMS:
                found.append(one)
    return tuple(found)


def _text(value: object) -> str | None:
    return value.strip()[:200] if isinstance(value, str) and value.strip() else None


def _dispatchable(value: object) -> tuple[Dispatchable, ...]:
    if not isinstance(value, list):
        return ()
    items: list[Dispatchable] = []
    for one in value[:MAX_ITEMS]:
        if not isinstance(one, dict):
            continue
        slug = _text(one.get("slug")) or _text(one.get("id")) or _text(one.get("entity"))
        if slug is None:
            continue
        items.append(Dispatchable(slug=slug, current=_text(one.get("current")), next=_text(one.get("next"))))
    return tuple(items)


def parse_boot(text: str | None, at: datetime | None = None) -> SpacedockBoot | None:
    """The boot reading of one command output, or ``None`` when *text* is not exactly one
    complete boot JSON object naming at least one absolute workflow directory."""
    if text is None or len(text) > MAX_BOOT_BYTES:
        return None
    stripped = text.strip()
    if not stripped.startswith("{") or not stripped.endswith("}"):
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict) or not any(key in value for key in _BOOT_KEYS):
        return None
    workflows = _dirs(value, _WORKFLOW_KEYS)
    if not workflows:
        return None
    return SpacedockBoot(
        workflow_dirs=workflows,
        entity_dirs=_dirs(value, _ENTITY_KEYS),
        dispatchable=_dispatchable(value.get("dispatchable")),
        at=at,
    )
