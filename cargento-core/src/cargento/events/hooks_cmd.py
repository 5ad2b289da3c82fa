"""``cargento hooks``: show, install or remove Cargento's hook entries in harness settings.

::

    cargento hooks [show]                      what is installed where
    cargento hooks install TARGET... [--port N] [--project DIR] [--script]
    cargento hooks remove TARGET... [--project DIR]

Targets:

* ``claude``: the Notification and SessionEnd hooks of the specification's path 2 in Claude
  Code's user settings (``settings.json`` under ``CLAUDE_CONFIG_DIR`` or ``~/.claude``).
* ``claude-events``: path 3 by hand, for a Claude Code run without the Cargento plugin (the
  plugin's bundled ``hooks/hooks.json`` already registers these).
* ``codex``: ``hooks.json`` under ``CODEX_HOME`` or ``~/.codex`` (the same events as the
  bundled ``codex-hooks.json``; Codex asks you to trust each hook once).
* ``gemini``: ``.gemini/settings.json`` under ``GEMINI_CLI_HOME`` or the home directory.
* ``antigravity``: the status line in ``.gemini/antigravity-cli/settings.json``; refused when
  another status line is configured there, since there is only one.
* ``opencode``: a copy of the passive plugin at ``<project>/.opencode/plugin/cargento.js``.
* ``pi``: a copy of the Pi extension under ``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``
  (``extensions/cargento.js``).

Settings files are merged, never overwritten: only handlers whose command is one of
Cargento's forwarders are added or removed, every other entry stays as it was, the previous
file is kept beside it as ``<name>.cargento-backup-<timestamp>``, and a file that does not
parse is left alone (exit 1). Commands name this installation's interpreter
(``"<python>" -m cargento.forwarders.event_hook claude``), which survives a ``pip install``
and needs nothing on PATH; ``--script`` writes the console-script form instead.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "ANTIGRAVITY_EVENTS",
    "CLAUDE_EVENTS",
    "CLAUDE_NOTIFY_EVENTS",
    "CODEX_EVENTS",
    "GEMINI_EVENTS",
    "TARGETS",
    "bundled_antigravity_hooks",
    "bundled_claude_hooks",
    "bundled_codex_hooks",
    "forwarder_command",
    "is_ours",
    "main",
    "merge_hooks",
    "remove_hooks",
]

#: Claude Code events the plugin forwards (path 3); SessionEnd runs synchronously so it
#: lands before the process exits, every other one asynchronously.
CLAUDE_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "TaskCreated",
    "TaskCompleted",
    "PostCompact",
    "SessionEnd",
)
CLAUDE_NOTIFY_EVENTS: tuple[str, ...] = ("Notification", "SessionEnd")
#: The specification's eight Codex events, plus Interrupt (what 0.171 sends instead of Stop
#: for an interrupted turn) and SessionEnd, both seen firing in the recorded 0.171 runs.
CODEX_EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PermissionRequest",
    "PostToolUse",
    "Stop",
    "Interrupt",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "SessionEnd",
)
GEMINI_EVENTS: tuple[str, ...] = ("SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "Notification", "SessionEnd")
ANTIGRAVITY_EVENTS: tuple[str, ...] = ("PostToolUse", "PostInvocation")
TARGETS: tuple[str, ...] = ("claude", "claude-events", "codex", "gemini", "antigravity", "opencode", "pi")

_MARKERS = ("cargento-event-hook", "cargento-notify-hook", "cargento-statusline-hook", "cargento.forwarders.")
_SCRIPTS = {"event_hook": "cargento-event-hook", "notify_hook": "cargento-notify-hook", "statusline_hook": "cargento-statusline-hook"}
#: A hook's own time limit, in seconds (loopback answers in milliseconds).
HOOK_TIMEOUT_S = 10


def forwarder_command(module: str, *args: str, script: bool = False, python: str | None = None) -> str:
    """The command line of one forwarder: the console script, or this interpreter with ``-m``."""
    tail = " ".join(shlex.quote(a) for a in args)
    if script:
        head = _SCRIPTS[module]
    else:
        head = f'"{python or sys.executable}" -m cargento.forwarders.{module}'
    return f"{head} {tail}".strip()


def is_ours(handler: object) -> bool:
    """True for a hook handler whose command runs one of Cargento's forwarders."""
    if not isinstance(handler, Mapping):
        return False
    command = handler.get("command")
    return isinstance(command, str) and any(m in command for m in _MARKERS)


def _handler(command: str, *, asynchronous: bool | None, timeout: int | None = HOOK_TIMEOUT_S) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        out["timeout"] = timeout
    if asynchronous is not None:
        out["async"] = asynchronous
    return out


def _claude_like(events: Sequence[str], command: str, *, sync: Sequence[str] = (), asynchronous: bool = True, timeout: int | None = HOOK_TIMEOUT_S) -> dict[str, Any]:
    return {
        event: [{"matcher": "", "hooks": [_handler(command, asynchronous=(event not in sync) if asynchronous else None, timeout=timeout)]}]
        for event in events
    }


def bundled_claude_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Claude Code plugin's ``hooks/hooks.json``."""
    return {
        "description": "Cargento: forward lifecycle events to the local dashboard (prints nothing, never answers a gate)",
        "hooks": _claude_like(CLAUDE_EVENTS, forwarder_command("event_hook", "claude", script=script), sync=("SessionEnd",)),
    }


def bundled_codex_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Codex plugin's ``hooks/codex-hooks.json``. Synchronous (Codex awaits every hook);
    the PermissionRequest handler prints nothing and exits 0, which Codex reads as no opinion."""
    return {"hooks": _claude_like(CODEX_EVENTS, forwarder_command("event_hook", "codex", script=script), asynchronous=False)}


def bundled_antigravity_hooks(*, script: bool = True) -> dict[str, Any]:
    """The Antigravity plugin's ``hooks/hooks.json``: after a tool step and after a model
    invocation, telling the dashboard only that the store probably moved."""
    return {
        "cargento": {
            "PostToolUse": [
                {"hooks": [_handler(forwarder_command("event_hook", "antigravity", "--event", "PostToolUse", script=script), asynchronous=None)]}
            ],
            "PostInvocation": [
                _handler(forwarder_command("event_hook", "antigravity", "--event", "PostInvocation", script=script), asynchronous=None)
            ],
        }
    }


# -- merging ---------------------------------------------------------------------------------


def _forwarder_of(groups: object) -> Callable[[object], bool]:
    """The predicate for the forwarder the wanted *groups* run (any of ours if unclear)."""
    text = json.dumps(groups)
    for module in _SCRIPTS:
        if f"cargento.forwarders.{module}" in text or _SCRIPTS[module] in text:
            return _of(module)
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
        raise ValueError("its \"hooks\" entry is not an object")
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


# -- files -----------------------------------------------------------------------------------


class Refused(Exception):
    """The change was not made; the message says why."""


def _home(env: Mapping[str, str]) -> Path:
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else Path.home()


def _location(target: str, env: Mapping[str, str], project: Path | None) -> Path:
    home = _home(env)
    if target in ("claude", "claude-events"):
        base = env.get("CLAUDE_CONFIG_DIR", "").strip()
        return (Path(base) if base else home / ".claude") / "settings.json"
    if target == "codex":
        base = env.get("CODEX_HOME", "").strip()
        return (Path(base) if base else home / ".codex") / "hooks.json"
    gemini_home = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME", "").strip() else home
    if target == "gemini":
        return gemini_home / ".gemini" / "settings.json"
    if target == "antigravity":
        return gemini_home / ".gemini" / "antigravity-cli" / "settings.json"
    if target == "pi":
        base = env.get("PI_CODING_AGENT_DIR", "").strip()
        return (Path(base) if base else home / ".pi" / "agent") / "extensions" / "cargento.js"
    if target == "opencode":
        if project is None:
            raise Refused("opencode is installed per project: pass --project DIR")
        return project / ".opencode" / "plugin" / "cargento.js"
    raise Refused(f"unknown target {target!r} (choose from {', '.join(TARGETS)})")


def _load(path: Path) -> dict[str, Any]:
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


def _save(path: Path, document: Mapping[str, Any] | str, now: datetime) -> Path | None:
    """Write atomically, keeping the previous file as a backup. Returns the backup path."""
    backup = None
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        backup = path.with_name(f"{path.name}.cargento-backup-{now.strftime('%Y%m%d%H%M%S')}")
        shutil.copy2(path, backup)
    data = document if isinstance(document, str) else json.dumps(document, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return backup


def _bundled_text(package: str, name: str) -> str:
    return resources.files(package).joinpath("hooks", name).read_text(encoding="utf-8")


def _wanted(target: str, *, port: int | None, script: bool) -> dict[str, Any]:
    extra = (str(port),) if port is not None else ()
    if target == "claude":
        url = (f"http://127.0.0.1:{port}/api/notify",) if port is not None else ()
        return _claude_like(CLAUDE_NOTIFY_EVENTS, forwarder_command("notify_hook", *url, script=script), sync=("SessionEnd",))
    if target == "claude-events":
        return _claude_like(CLAUDE_EVENTS, forwarder_command("event_hook", "claude", *extra, script=script), sync=("SessionEnd",))
    if target == "codex":
        return _claude_like(CODEX_EVENTS, forwarder_command("event_hook", "codex", *extra, script=script), asynchronous=False)
    if target == "gemini":
        return _claude_like(GEMINI_EVENTS, forwarder_command("event_hook", "gemini", *extra, script=script), asynchronous=False, timeout=None)
    raise Refused(f"{target} has no hook entries")


def install(target: str, env: Mapping[str, str], *, port: int | None, project: Path | None, script: bool, now: datetime) -> str:
    path = _location(target, env, project)
    if target in ("opencode", "pi"):
        package, name = (
            ("cargento_harness_opencode", "opencode_plugin.js") if target == "opencode" else ("cargento_harness_pi", "pi_extension.js")
        )
        try:
            text = _bundled_text(package, name)
        except (ModuleNotFoundError, FileNotFoundError):
            raise Refused(f"{package} is not installed, so there is no {name} to copy") from None
        if path.exists() and "cargento" not in path.read_text(encoding="utf-8", errors="replace").lower():
            raise Refused(f"{path} exists and is not Cargento's; nothing changed")
        if path.exists() and path.read_text(encoding="utf-8", errors="replace") == text:
            return f"{target}: {path} is already current"
        backup = _save(path, text, now)
        note = " (start a fresh session to load it)"
        return f"{target}: wrote {path}{note}" + (f"; previous copy kept at {backup}" if backup else "")
    settings = _load(path)
    if target == "antigravity":
        command = forwarder_command("statusline_hook", *((str(port),) if port is not None else ()), script=script)
        current = settings.get("statusLine")
        if isinstance(current, Mapping) and current.get("command") and not is_ours(current):
            raise Refused(f"{path} already has a status line ({current.get('command')!r}); there is only one, so nothing changed")
        if isinstance(current, Mapping) and current.get("command") == command:
            return f"{target}: {path} already runs {command}"
        updated = {**settings, "statusLine": {"type": "command", "command": command, "enabled": True}}
        backup = _save(path, updated, now)
        return f"{target}: status line set in {path}" + (f"; backup at {backup}" if backup else "")
    try:
        updated, added = merge_hooks(settings, _wanted(target, port=port, script=script))
    except ValueError as exc:
        raise Refused(f"{path}: {exc}; nothing changed") from None
    if not added:
        return f"{target}: {path} already has Cargento's entries"
    backup = _save(path, updated, now)
    return f"{target}: added {', '.join(added)} to {path}" + (f"; backup at {backup}" if backup else "")


def remove(target: str, env: Mapping[str, str], *, project: Path | None, now: datetime) -> str:
    path = _location(target, env, project)
    if target in ("opencode", "pi"):
        if not path.exists():
            return f"{target}: nothing at {path}"
        if "cargento" not in path.read_text(encoding="utf-8", errors="replace").lower():
            raise Refused(f"{path} is not Cargento's; nothing changed")
        path.unlink()
        return f"{target}: removed {path} (start a fresh session to unload it)"
    settings = _load(path)
    if target == "antigravity":
        current = settings.get("statusLine")
        if not is_ours(current):
            return f"{target}: {path} has no Cargento status line"
        updated = {k: v for k, v in settings.items() if k != "statusLine"}
        backup = _save(path, updated, now)
        return f"{target}: status line removed from {path}; backup at {backup}"
    # Path 2 and path 3 share Claude's file: each target removes only its own forwarder.
    updated, removed = remove_hooks(settings, _of("notify_hook") if target == "claude" else _of("event_hook"))
    if not removed:
        return f"{target}: {path} has no Cargento entries"
    backup = _save(path, updated, now)
    return f"{target}: removed Cargento from {', '.join(removed)} in {path}; backup at {backup}"


def _of(module: str) -> Callable[[object], bool]:
    """A predicate for the handlers of one forwarder (path 2 and path 3 share a file)."""
    script = _SCRIPTS[module]

    def match(handler: object) -> bool:
        command = handler.get("command") if isinstance(handler, Mapping) else None
        return isinstance(command, str) and (f"cargento.forwarders.{module}" in command or script in command)

    return match


def _handlers(settings: Mapping[str, Any]) -> Iterator[tuple[str, object]]:
    """Every (event, handler) pair of a settings document's ``hooks``."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, Mapping):
        return
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for group in groups:
            inner = group.get("hooks") if isinstance(group, Mapping) else None
            for handler in inner if isinstance(inner, list) else [group]:
                yield str(event), handler


def show(env: Mapping[str, str], project: Path | None) -> list[str]:
    lines = []
    for target in TARGETS:
        try:
            path = _location(target, env, project)
        except Refused as exc:
            lines.append(f"{target:14} {exc}")
            continue
        if target in ("opencode", "pi"):
            state = "installed" if path.exists() and "cargento" in path.read_text(encoding="utf-8", errors="replace").lower() else "not installed"
            lines.append(f"{target:14} {state}: {path}")
            continue
        try:
            settings = _load(path)
        except Refused as exc:
            lines.append(f"{target:14} {exc}")
            continue
        if target == "antigravity":
            line = settings.get("statusLine")
            state = "installed" if is_ours(line) else ("another status line is set" if isinstance(line, Mapping) else "not installed")
            lines.append(f"{target:14} {state}: {path}")
            continue
        wanted = set(_wanted(target, port=None, script=True))
        mine = _of("notify_hook") if target == "claude" else _of("event_hook")
        pairs = list(_handlers(settings))
        ours = sorted({event for event, h in pairs if event in wanted and is_ours(h) and mine(h)})
        others = sum(1 for _, h in pairs if not is_ours(h))
        state = f"{len(ours)}/{len(wanted)} events installed" if ours else "not installed"
        lines.append(f"{target:14} {state}; {others} other handler(s) left alone: {path}")
    return lines


def main(argv: Sequence[str] | None = None, *, env: Mapping[str, str] | None = None, now: datetime | None = None) -> int:
    """``cargento hooks ...``; returns the exit status."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="cargento hooks", description="Show, install or remove Cargento's hook entries.")
    parser.add_argument("action", nargs="?", default="show", choices=("show", "install", "remove"))
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=", ".join(TARGETS))
    parser.add_argument("--port", type=int, default=None, help="a dashboard port other than 4553")
    parser.add_argument("--project", type=Path, default=None, help="the project directory (opencode)")
    parser.add_argument("--script", action="store_true", help="write console-script commands instead of this interpreter")
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.port is not None and not 1 <= args.port <= 65535:
        print("cargento hooks: --port must be from 1 to 65535", file=sys.stderr)
        return 2
    moment = now or datetime.now(UTC)
    if args.action == "show":
        for line in show(env, args.project):
            print(line)
        return 0
    if not args.targets:
        print(f"cargento hooks {args.action}: name at least one target ({', '.join(TARGETS)})", file=sys.stderr)
        return 2
    status = 0
    for target in args.targets:
        try:
            if args.action == "install":
                print(install(target, env, port=args.port, project=args.project, script=args.script, now=moment))
            else:
                print(remove(target, env, project=args.project, now=moment))
        except Refused as exc:
            print(f"cargento hooks: {exc}", file=sys.stderr)
            status = 1
    return status
