"""The one settings-merge engine ``cargento hooks`` uses for every harness.

Settings files are merged, never overwritten: only handlers whose command is one of
Cargento's forwarders are added or removed, every other entry stays as it was, the previous
file is kept beside it as ``<name>.cargento-backup-<timestamp>``, and a file that does not
parse is left alone. Commands name this installation's interpreter
(``"<python>" -m cargento.forwarders.event_hook <harness>``), which survives a ``pip install``
and needs nothing on PATH; the console-script form is the other choice.

Plugins use :func:`forwarder_command` and :func:`hook_groups` to build the hook files they
bundle, so a bundled file and what ``cargento hooks install`` writes cannot drift apart.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from cargento.atomicfile import write_atomic
from cargento.events.targets import HOOK_TIMEOUT_S

__all__ = [
    "FORWARDER_SCRIPTS",
    "Refused",
    "forwarder_command",
    "handler",
    "handlers_of",
    "hook_groups",
    "is_ours",
    "load_settings",
    "merge_hooks",
    "pairs",
    "remove_hooks",
    "save_file",
]

_MARKERS = ("cargento-event-hook", "cargento-notify-hook", "cargento-statusline-hook", "cargento.forwarders.")
#: Each forwarder module's console script.
FORWARDER_SCRIPTS: Mapping[str, str] = {
    "event_hook": "cargento-event-hook",
    "notify_hook": "cargento-notify-hook",
    "statusline_hook": "cargento-statusline-hook",
}


class Refused(Exception):
    """The change was not made; the message says why."""


def forwarder_command(module: str, *args: str, script: bool = False, python: str | None = None) -> str:
    """The command line of one forwarder: the console script, or this interpreter with ``-m``."""
    tail = " ".join(shlex.quote(a) for a in args)
    if script:
        head = FORWARDER_SCRIPTS[module]
    else:
        head = f'"{python or sys.executable}" -m cargento.forwarders.{module}'
    return f"{head} {tail}".strip()


def is_ours(handler: object) -> bool:
    """True for a hook handler whose command runs one of Cargento's forwarders."""
    if not isinstance(handler, Mapping):
        return False
    command = handler.get("command")
    return isinstance(command, str) and any(m in command for m in _MARKERS)


def handler(command: str, *, asynchronous: bool | None, timeout: int | None = HOOK_TIMEOUT_S) -> dict[str, Any]:
    """One ``{"type": "command", ...}`` handler; ``None`` leaves the key out."""
    out: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        out["timeout"] = timeout
    if asynchronous is not None:
        out["async"] = asynchronous
    return out


def hook_groups(
    events: Sequence[str],
    command: str,
    *,
    sync: Sequence[str] = (),
    asynchronous: bool = True,
    timeout: int | None = HOOK_TIMEOUT_S,
) -> dict[str, Any]:
    """``{event: [{"matcher": "", "hooks": [handler]}]}`` for *events*, each running *command*.

    With *asynchronous* every handler says ``"async"`` (``false`` for the *sync* events);
    without it no handler carries the key.
    """
    return {
        event: [
            {
                "matcher": "",
                "hooks": [
                    handler(command, asynchronous=(event not in sync) if asynchronous else None, timeout=timeout)
                ],
            }
        ]
        for event in events
    }


def handlers_of(module: str) -> Callable[[object], bool]:
    """A predicate for the handlers of one forwarder (two targets may share a file)."""
    script = FORWARDER_SCRIPTS[module]

    def match(found: object) -> bool:
        command = found.get("command") if isinstance(found, Mapping) else None
        return isinstance(command, str) and (f"cargento.forwarders.{module}" in command or script in command)

    return match


def _forwarder_of(groups: object) -> Callable[[object], bool]:
    """The predicate for the forwarder the wanted *groups* run (any of ours if unclear)."""
    text = json.dumps(groups)
    for module, script in FORWARDER_SCRIPTS.items():
        if f"cargento.forwarders.{module}" in text or script in text:
            return handlers_of(module)
    return is_ours


def merge_hooks(settings: Mapping[str, Any], wanted: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """*settings* with Cargento's *wanted* ``{event: [groups]}`` added where absent.

    An event that already carries one of Cargento's handlers is left as it is; every other
    tool's entry is kept untouched. Returns the new document and the events added.
    """
    out = json.loads(json.dumps(dict(settings)))
    hooks = out.get("hooks")
    if hooks is None:
        hooks = out["hooks"] = {}
    if not isinstance(hooks, dict):
        raise ValueError('its "hooks" entry is not an object')
    added = []
    for event, groups in wanted.items():
        current = hooks.get(event)
        if current is None:
            hooks[event] = json.loads(json.dumps(groups))
            added.append(event)
            continue
        if not isinstance(current, list):
            raise ValueError(f"its hooks.{event} entry is not a list")
        forwarder = _forwarder_of(groups)
        if any(forwarder(h) for g in current if isinstance(g, Mapping) for h in (g.get("hooks") or [g])):
            continue
        current.extend(json.loads(json.dumps(groups)))
        added.append(event)
    return out, added


def remove_hooks(
    settings: Mapping[str, Any], only: Callable[[object], bool] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """*settings* without Cargento's handlers (those *only* accepts, when given); other
    entries untouched. Returns the new document and the events handlers were removed from."""
    mine = is_ours if only is None else (lambda h: is_ours(h) and only(h))
    out = json.loads(json.dumps(dict(settings)))
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out, []
    removed = []
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        touched = False
        for group in groups:
            if isinstance(group, Mapping) and isinstance(group.get("hooks"), list):
                handlers = [h for h in group["hooks"] if not mine(h)]
                if len(handlers) != len(group["hooks"]):
                    touched = True
                    if not handlers:
                        continue
                    group = {**group, "hooks": handlers}
            elif mine(group):
                touched = True
                continue
            kept.append(group)
        if touched:
            removed.append(event)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if not hooks and removed:
        del out["hooks"]
    return out, removed


def pairs(settings: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """Every (event, handler) pair of a settings document's ``hooks``."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, Mapping):
        return
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            inner = group.get("hooks") if isinstance(group, Mapping) else None
            for found in inner if isinstance(inner, list) else [group]:
                yield str(event), found


def load_settings(path: Path) -> dict[str, Any]:
    """A settings file's JSON object (``{}`` when absent or empty). Raises :class:`Refused`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise Refused(f"{path} could not be read ({exc.strerror or exc}); nothing changed") from None
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise Refused(f"{path} is not valid JSON; nothing changed (fix or move it first)") from None
    if not isinstance(value, dict):
        raise Refused(f"{path} does not hold a JSON object; nothing changed")
    return value


def save_file(path: Path, document: Mapping[str, Any] | str, now: datetime) -> Path | None:
    """Write atomically, keeping the previous file as a backup. Returns the backup path."""
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        backup = path.with_name(f"{path.name}.cargento-backup-{now.strftime('%Y%m%d%H%M%S')}")
        shutil.copy2(path, backup)
    data = document if isinstance(document, str) else json.dumps(document, indent=2) + "\n"
    write_atomic(path, data)
    return backup
