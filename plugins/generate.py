"""Generate Cargento's plugins for the harnesses that have plugin systems, from the harness
plugins' own declarations.

    python plugins/generate.py           # write every file
    python plugins/generate.py --check   # exit 1 when a committed file differs

Each harness plugin says where Cargento's hooks go and what they run through its
``hook_targets`` hook (:class:`cargento.events.targets.HookTarget`: the events, the forwarder,
its arguments, whether a handler is asynchronous, its timeout). The same declarations drive
``cargento hooks install`` (for users who do not use plugins), so a bundled hook file and what
the installer writes cannot drift apart; the only difference is that a bundled file names the
forwarder's console script (``cargento-event-hook``), since a plugin cannot know which
interpreter Cargento was installed into. Antigravity's plugin hooks are not a settings target
(its one target is the status line), so they come from its plugin's own ``bundled_hooks``.

What is written (every path relative to the repository root):

* Claude Code: ``plugins/claude/`` (``.claude-plugin/plugin.json``, ``hooks/hooks.json``,
  ``.mcp.json`` with the ``cargento-ask`` server, ``skills/cargento/SKILL.md``) and the
  marketplace ``.claude-plugin/marketplace.json``, so ``/plugin marketplace add`` takes this
  repository;
* Codex: ``plugins/codex/`` (``.codex-plugin/plugin.json`` and the same parts) and the repo
  marketplace ``.agents/plugins/marketplace.json``;
* Gemini CLI: the extension ``plugins/gemini/`` (``gemini-extension.json``,
  ``hooks/hooks.json``, ``skills/cargento/SKILL.md``);
* Antigravity: the plugin ``plugins/antigravity/`` (its ``plugin.json`` marker, ``hooks.json``
  and ``mcp_config.json`` at the plugin root, ``skills/cargento/SKILL.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cargento.events.settings import forwarder_command, hook_groups
from cargento.events.targets import HookTarget

ROOT = Path(__file__).resolve().parent.parent
NAME = "cargento"
DESCRIPTION = (
    "Cargento: a local dashboard of your coding-agent sessions. Forwards this harness's lifecycle "
    "events to it and lets a session ask you a multiple-choice question (ask_operator)."
)
REPOSITORY = "https://github.com/cargento/cargento"
LICENSE = "MIT"
#: The ask lane's stdio MCP server, as every harness's MCP configuration names it.
MCP_SERVER = {"command": "cargento-ask", "args": []}
MCP_NAME = "ask"


def _version() -> str:
    from cargento_web import __version__

    return str(__version__)


def _targets() -> dict[str, HookTarget]:
    """Every first-party harness's hook targets, by name (the plugins' own declarations)."""
    from cargento_harness_claude.hook_targets import targets as claude
    from cargento_harness_codex.hook_targets import targets as codex
    from cargento_harness_gemini.hook_targets import targets as gemini

    # The paths a target resolves do not matter here, only what it runs.
    env: Mapping[str, str] = {}
    home = Path("/nonexistent-home")
    return {t.name: t for t in (*claude(env, home), *codex(env, home), *gemini(env, home))}


def hooks_of(target: HookTarget) -> dict[str, Any]:
    """The ``{event: [groups]}`` a target declares, running the forwarder's console script."""
    return hook_groups(
        target.events,
        forwarder_command(target.forwarder, *target.arguments, script=True),
        sync=target.sync_events,
        asynchronous=target.asynchronous,
        timeout=target.timeout,
    )


def skill_text() -> str:
    """The skill every plugin bundles: starting, checking and stopping the dashboard."""
    return """---
name: cargento
description: Start, check or stop the Cargento dashboard of this machine's coding-agent sessions, open it in the browser, or ask the person at it a multiple-choice question with ask_operator.
---

# Cargento dashboard

Cargento is a local web dashboard of every coding-agent session on this machine. It is installed
as a Python package (`pip install cargento`), which puts `cargento` on PATH.

## Start

Check first whether one is already running, then start it detached so it keeps running after
this session ends:

    cargento --port 4553 --status
    cargento --port 4553 --daemon

`--daemon` prints the URL, the pid and the log path, and returns. If the port is busy it says
so and exits non-zero; `--status` tells a running dashboard from another process holding the
port, and never changes anything. Then open the page:

    python3 -m webbrowser -t http://127.0.0.1:4553/

Use 127.0.0.1, not localhost: the server listens on IPv4 only. Tell the user the URL, that the
page updates itself as sessions change, that it keeps running until stopped, and that desktop
notifications need the server running.

## Check

    cargento --port 4553 --status

It reports running (with pid and start time), not running, or that the port belongs to some
other process.

## Stop

    cargento --port 4553 --stop

It stops only the dashboard on that port, and changes nothing if the port belongs to another
process.

## Ask the person at the dashboard

The `ask_operator` tool (this plugin's `cargento-ask` MCP server) puts a question with two to
six short options on the dashboard and returns the option the person chose. It never returns
free text. When nobody answers in time, the dashboard is not running, or it runs with
`--no-ask`, the result says `declined` or `expired`: carry on without the choice or ask in the
terminal instead.
"""


def _json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def files() -> dict[str, str]:
    """Every generated file, by its path relative to the repository root."""
    targets = _targets()
    version = _version()
    author = {"name": "Cargento contributors"}
    skill = skill_text()
    mcp = {"mcpServers": {MCP_NAME: MCP_SERVER}}
    out: dict[str, str] = {}

    # -- Claude Code -----------------------------------------------------------------------
    claude_hooks = {
        "description": "Cargento: forward lifecycle events to the local dashboard (prints nothing, never answers a gate)",
        "hooks": hooks_of(targets["claude-events"]),
    }
    out["plugins/claude/.claude-plugin/plugin.json"] = _json(
        {
            "name": NAME,
            "version": version,
            "description": DESCRIPTION,
            "author": author,
            "homepage": REPOSITORY,
            "repository": REPOSITORY,
            "license": LICENSE,
            "keywords": ["dashboard", "sessions", "hooks", "mcp"],
        }
    )
    out["plugins/claude/hooks/hooks.json"] = _json(claude_hooks)
    out["plugins/claude/.mcp.json"] = _json(mcp)
    out["plugins/claude/skills/cargento/SKILL.md"] = skill
    out[".claude-plugin/marketplace.json"] = _json(
        {
            "name": NAME,
            "owner": author,
            "metadata": {"description": "Cargento's plugin for Claude Code, from its own repository."},
            "plugins": [
                {
                    "name": NAME,
                    "source": "./plugins/claude",
                    "description": DESCRIPTION,
                    "version": version,
                    "license": LICENSE,
                }
            ],
        }
    )

    # -- Codex -----------------------------------------------------------------------------
    out["plugins/codex/.codex-plugin/plugin.json"] = _json(
        {
            "name": NAME,
            "version": version,
            "description": DESCRIPTION,
            "author": author,
            "homepage": REPOSITORY,
            "repository": REPOSITORY,
            "license": LICENSE,
            "keywords": ["dashboard", "sessions", "hooks", "mcp"],
            "skills": "./skills/",
            "mcpServers": "./.mcp.json",
            "hooks": "./hooks/hooks.json",
            "interface": {
                "displayName": "Cargento",
                "shortDescription": "Your coding-agent sessions on a local dashboard",
                "category": "Productivity",
            },
        }
    )
    out["plugins/codex/hooks/hooks.json"] = _json({"hooks": hooks_of(targets["codex"])})
    out["plugins/codex/.mcp.json"] = _json(mcp)
    out["plugins/codex/skills/cargento/SKILL.md"] = skill
    out[".agents/plugins/marketplace.json"] = _json(
        {
            "name": NAME,
            "interface": {"displayName": "Cargento"},
            "plugins": [
                {
                    "name": NAME,
                    "source": {"source": "local", "path": "./plugins/codex"},
                    "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                    "category": "Productivity",
                }
            ],
        }
    )

    # -- Gemini CLI ------------------------------------------------------------------------
    out["plugins/gemini/gemini-extension.json"] = _json(
        {
            "name": NAME,
            "version": version,
            "description": DESCRIPTION,
            "mcpServers": {MCP_NAME: MCP_SERVER},
        }
    )
    out["plugins/gemini/hooks/hooks.json"] = _json({"hooks": hooks_of(targets["gemini"])})
    out["plugins/gemini/skills/cargento/SKILL.md"] = skill

    # -- Antigravity -----------------------------------------------------------------------
    from cargento_harness_antigravity.hook_targets import bundled_hooks as antigravity

    out["plugins/antigravity/plugin.json"] = _json({"name": NAME, "version": version, "description": DESCRIPTION})
    out["plugins/antigravity/hooks.json"] = _json(antigravity())
    out["plugins/antigravity/mcp_config.json"] = _json(mcp)
    out["plugins/antigravity/skills/cargento/SKILL.md"] = skill
    return out


def check(root: Path = ROOT) -> list[str]:
    """The generated files whose committed copy differs (or is missing)."""
    stale = []
    for relative, text in files().items():
        path = root / relative
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(relative)
    return stale


def write(root: Path = ROOT) -> list[str]:
    written = []
    for relative, text in files().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(relative)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate Cargento's harness plugins.")
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed file differs")
    args = parser.parse_args(argv)
    if args.check:
        stale = check()
        for relative in stale:
            print(f"out of date: {relative} (run python plugins/generate.py)", file=sys.stderr)
        return 1 if stale else 0
    for relative in write():
        print(f"wrote {relative}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
