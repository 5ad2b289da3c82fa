"""``cargento hooks``: show, install or remove Cargento's hook entries in harness settings.

::

    cargento hooks [show]                      what is installed where
    cargento hooks install TARGET... [--port N] [--project DIR] [--script]
    cargento hooks remove TARGET... [--project DIR]

The targets are the loaded harness plugins' own: each declares, through
:func:`cargento.hookspecs.hook_targets`, which settings file or adapter file it uses and what
goes there (:class:`~cargento.events.targets.HookTarget`). ``cargento hooks show`` lists every
target of every loaded plugin. The merge itself is :mod:`cargento.events.settings`, the same for
every harness: settings files are merged, never overwritten, a backup is kept beside them, and a
file that does not parse is left alone (exit 1).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento.events.settings import (
    Refused,
    forwarder_command,
    handlers_of,
    hook_groups,
    is_ours,
    load_settings,
    merge_hooks,
    pairs,
    remove_hooks,
    save_file,
)
from cargento.events.targets import HOOK_TIMEOUT_S, HookTarget
from cargento.platforms import home_from

if TYPE_CHECKING:
    from cargento.plugins import Registry

__all__ = [
    "HOOK_TIMEOUT_S",
    "Refused",
    "declared_targets",
    "forwarder_command",
    "install",
    "is_ours",
    "main",
    "merge_hooks",
    "remove",
    "remove_hooks",
    "show",
    "wanted_groups",
]


def declared_targets(registry: Registry, env: Mapping[str, str], project: Path | None) -> list[HookTarget]:
    """Every hook target of every loaded plugin, in harness-key order then each plugin's own.

    A plugin whose hook fails contributes none (the fault is recorded on the registry).
    """
    home = home_from(env)
    found: list[HookTarget] = []
    for key in registry.loaded():
        if not registry.implements(key, "hook_targets"):
            continue
        result = registry.call(key, "hook_targets", env=env, home=home, project=project)
        value = getattr(result, "value", None)
        if isinstance(value, tuple | list):
            found.extend(t for t in value if isinstance(t, HookTarget))
    return found


def _port_arguments(target: HookTarget, port: int | None) -> tuple[str, ...]:
    if port is None:
        return ()
    if target.port_form == "notify_url":
        return (f"http://127.0.0.1:{port}/api/notify",)
    return (str(port),)


def _command(target: HookTarget, *, port: int | None, script: bool) -> str:
    return forwarder_command(target.forwarder, *target.arguments, *_port_arguments(target, port), script=script)


def wanted_groups(target: HookTarget, *, port: int | None = None, script: bool = False) -> dict[str, Any]:
    """The ``{event: [groups]}`` a ``settings`` target merges in."""
    return hook_groups(
        target.events,
        _command(target, port=port, script=script),
        sync=target.sync_events,
        asynchronous=target.asynchronous,
        timeout=target.timeout,
    )


def _path(target: HookTarget) -> Path:
    if target.unavailable is not None or target.path is None:
        raise Refused(target.unavailable or f"{target.name} has no file to write here")
    return target.path


def _is_cargentos(path: Path) -> bool:
    return "cargento" in path.read_text(encoding="utf-8", errors="replace").lower()


def install(target: HookTarget, *, port: int | None, script: bool, now: datetime) -> str:
    """Install one target; returns the line to print. Raises :class:`Refused`."""
    path = _path(target)
    name = target.name
    if target.style == "adapter_file":
        text = target.adapter_text
        if text is None:
            raise Refused(f"{name}: the plugin bundles no adapter file to copy")
        if path.exists() and not _is_cargentos(path):
            raise Refused(f"{path} exists and is not Cargento's; nothing changed")
        if path.exists() and path.read_text(encoding="utf-8", errors="replace") == text:
            return f"{name}: {path} is already current"
        backup = save_file(path, text, now)
        return f"{name}: wrote {path} (start a fresh session to load it)" + (
            f"; previous copy kept at {backup}" if backup else ""
        )
    settings = load_settings(path)
    if target.style == "status_line":
        command = _command(target, port=port, script=script)
        current = settings.get("statusLine")
        if isinstance(current, Mapping) and current.get("command") and not is_ours(current):
            raise Refused(
                f"{path} already has a status line ({current.get('command')!r}); there is only one, so nothing changed"
            )
        if isinstance(current, Mapping) and current.get("command") == command:
            return f"{name}: {path} already runs {command}"
        updated = {**settings, "statusLine": {"type": "command", "command": command, "enabled": True}}
        backup = save_file(path, updated, now)
        return f"{name}: status line set in {path}" + (f"; backup at {backup}" if backup else "")
    try:
        updated, added = merge_hooks(settings, wanted_groups(target, port=port, script=script))
    except ValueError as exc:
        raise Refused(f"{path}: {exc}; nothing changed") from None
    if not added:
        return f"{name}: {path} already has Cargento's entries"
    backup = save_file(path, updated, now)
    return f"{name}: added {', '.join(added)} to {path}" + (f"; backup at {backup}" if backup else "")


def remove(target: HookTarget, *, now: datetime) -> str:
    """Remove one target's entries; returns the line to print. Raises :class:`Refused`."""
    path = _path(target)
    name = target.name
    if target.style == "adapter_file":
        if not path.exists():
            return f"{name}: nothing at {path}"
        if not _is_cargentos(path):
            raise Refused(f"{path} is not Cargento's; nothing changed")
        path.unlink()
        return f"{name}: removed {path} (start a fresh session to unload it)"
    settings = load_settings(path)
    if target.style == "status_line":
        if not is_ours(settings.get("statusLine")):
            return f"{name}: {path} has no Cargento status line"
        updated = {k: v for k, v in settings.items() if k != "statusLine"}
        backup = save_file(path, updated, now)
        return f"{name}: status line removed from {path}; backup at {backup}"
    # Two targets may share a file (a notify forwarder and an event forwarder): each removes
    # only its own forwarder's handlers.
    updated, removed = remove_hooks(settings, handlers_of(target.forwarder))
    if not removed:
        return f"{name}: {path} has no Cargento entries"
    backup = save_file(path, updated, now)
    return f"{name}: removed Cargento from {', '.join(removed)} in {path}; backup at {backup}"


def _show_one(target: HookTarget) -> str:
    name = target.name
    try:
        path = _path(target)
    except Refused as exc:
        return f"{name:14} {exc}"
    if target.style == "adapter_file":
        state = "installed" if path.exists() and _is_cargentos(path) else "not installed"
        return f"{name:14} {state}: {path}"
    try:
        settings = load_settings(path)
    except Refused as exc:
        return f"{name:14} {exc}"
    if target.style == "status_line":
        line = settings.get("statusLine")
        state = (
            "installed"
            if is_ours(line)
            else ("another status line is set" if isinstance(line, Mapping) else "not installed")
        )
        return f"{name:14} {state}: {path}"
    wanted = set(target.events)
    mine = handlers_of(target.forwarder)
    found = list(pairs(settings))
    ours = sorted({event for event, h in found if event in wanted and is_ours(h) and mine(h)})
    others = sum(1 for _, h in found if not is_ours(h))
    state = f"{len(ours)}/{len(wanted)} events installed" if ours else "not installed"
    return f"{name:14} {state}; {others} other handler(s) left alone: {path}"


def show(targets: Iterable[HookTarget]) -> list[str]:
    """One line per target: what is installed where."""
    return [_show_one(t) for t in targets]


def _registry(env: Mapping[str, str]) -> Registry:
    from cargento.plugins import load_registry

    return load_registry(env=env)


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    now: datetime | None = None,
    registry: Registry | None = None,
) -> int:
    """``cargento hooks ...``; returns the exit status."""
    env = os.environ if env is None else env
    registry = registry if registry is not None else _registry(dict(env))
    parser = argparse.ArgumentParser(
        prog="cargento hooks", description="Show, install or remove Cargento's hook entries."
    )
    parser.add_argument("action", nargs="?", default="show", choices=("show", "install", "remove"))
    parser.add_argument("targets", nargs="*", metavar="TARGET", help="a target that cargento hooks show lists")
    parser.add_argument("--port", type=int, default=None, help="a dashboard port other than 4553")
    parser.add_argument(
        "--project", type=Path, default=None, help="the project directory (for targets installed per project)"
    )
    parser.add_argument(
        "--script", action="store_true", help="write console-script commands instead of this interpreter"
    )
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.port is not None and not 1 <= args.port <= 65535:
        print("cargento hooks: --port must be from 1 to 65535", file=sys.stderr)
        return 2
    moment = now or datetime.now(UTC)
    targets = declared_targets(registry, env, args.project)
    names = [t.name for t in targets]
    if args.action == "show":
        if not targets:
            print("no loaded harness plugin declares a hook target")
        for line in show(targets):
            print(line)
        return 0
    if not args.targets:
        print(f"cargento hooks {args.action}: name at least one target ({', '.join(names)})", file=sys.stderr)
        return 2
    by_name = {t.name: t for t in targets}
    status = 0
    for name in args.targets:
        try:
            target = by_name.get(name)
            if target is None:
                raise Refused(f"unknown target {name!r} (choose from {', '.join(names)})")
            if args.action == "install":
                print(install(target, port=args.port, script=args.script, now=moment))
            else:
                print(remove(target, now=moment))
        except Refused as exc:
            print(f"cargento hooks: {exc}", file=sys.stderr)
            status = 1
    return status


def __getattr__(name: str) -> Any:
    """Deprecated (0.1) constants: ``TARGETS`` and ``<HARNESS>_EVENTS`` /
    ``<HARNESS>_NOTIFY_EVENTS``, now read from the installed plugins' declared targets."""
    import warnings

    if name == "TARGETS" or name.endswith("_EVENTS"):
        targets = declared_targets(_registry(dict(os.environ)), os.environ, None)
        value: Any
        if name == "TARGETS":
            value = tuple(t.name for t in targets)
        else:
            notify = name.endswith("_NOTIFY_EVENTS")
            harness = name.removesuffix("_NOTIFY_EVENTS" if notify else "_EVENTS").lower()
            forwarder = "notify_hook" if notify else "event_hook"
            match = next(
                (
                    t
                    for t in targets
                    if t.style == "settings"
                    and t.forwarder == forwarder
                    and (notify or t.arguments[:1] == (harness,))
                    and t.name.split("-")[0] == harness
                ),
                None,
            )
            if match is None:
                raise AttributeError(f"module {__name__!r} has no attribute {name!r} (no loaded plugin declares it)")
            value = match.events
        warnings.warn(
            f"cargento.events.hooks_cmd.{name} is deprecated: read the plugins' targets with declared_targets()",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
