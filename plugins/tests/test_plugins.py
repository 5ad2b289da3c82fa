"""The generated harness plugins: committed files equal what the generator makes, every file
validates against its harness's documented schema, every command they run is one of
Cargento's installed console scripts, every hook event is one the dashboard's lane for that
harness understands, and the Claude plugin's MCP server answers a real MCP session."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import os
import re
import shlex
import sys
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).with_name("schemas")


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cargento_plugins_generate", ROOT / "plugins" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATE = _generator()
#: Each generated JSON file and the schema it must satisfy.
SCHEMA_OF = {
    "plugins/claude/.claude-plugin/plugin.json": "claude-plugin",
    ".claude-plugin/marketplace.json": "claude-marketplace",
    "plugins/claude/hooks/hooks.json": "command-hooks",
    "plugins/claude/.mcp.json": "mcp-config",
    "plugins/codex/.codex-plugin/plugin.json": "codex-plugin",
    ".agents/plugins/marketplace.json": "codex-marketplace",
    "plugins/codex/hooks/hooks.json": "command-hooks",
    "plugins/codex/.mcp.json": "mcp-config",
    "plugins/gemini/gemini-extension.json": "gemini-extension",
    "plugins/gemini/hooks/hooks.json": "command-hooks",
    "plugins/antigravity/plugin.json": "antigravity-plugin",
    "plugins/antigravity/hooks.json": "antigravity-hooks",
    "plugins/antigravity/mcp_config.json": "mcp-config",
}


def _load(relative: str) -> Any:
    return json.loads((ROOT / relative).read_text(encoding="utf-8"))


def test_the_committed_plugins_are_what_the_generator_makes() -> None:
    assert GENERATE.check(ROOT) == []


def test_the_check_names_a_file_that_drifted(tmp_path: Path) -> None:
    GENERATE.write(tmp_path)
    assert GENERATE.check(tmp_path) == []
    hooks = tmp_path / "plugins" / "claude" / "hooks" / "hooks.json"
    hooks.write_text(hooks.read_text().replace("SessionEnd", "SessionEnded"))
    (tmp_path / "plugins" / "gemini" / "gemini-extension.json").unlink()
    assert sorted(GENERATE.check(tmp_path)) == [
        "plugins/claude/hooks/hooks.json",
        "plugins/gemini/gemini-extension.json",
    ]


@pytest.mark.parametrize("relative", sorted(SCHEMA_OF))
def test_each_file_validates_against_its_harness_schema(relative: str) -> None:
    schema = json.loads((SCHEMAS / f"{SCHEMA_OF[relative]}.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(_load(relative)), key=str)
    assert errors == [], [e.message for e in errors]


def test_a_schema_refuses_what_its_harness_would_refuse() -> None:
    """The schemas are not vacuous: a wrong name, a hook that is not a command, a server
    without a command are all refused."""
    manifest = json.loads((SCHEMAS / "claude-plugin.schema.json").read_text())
    assert not Draft202012Validator(manifest).is_valid({"name": "Cargento Plugin"})
    assert not Draft202012Validator(manifest).is_valid({"name": "cargento", "hook": "./hooks.json"})
    hooks = json.loads((SCHEMAS / "command-hooks.schema.json").read_text())
    bad = {"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "prompt", "prompt": "x"}]}]}}
    assert not Draft202012Validator(hooks).is_valid(bad)
    mcp = json.loads((SCHEMAS / "mcp-config.schema.json").read_text())
    assert not Draft202012Validator(mcp).is_valid({"mcpServers": {"ask": {"args": []}}})


def _commands() -> list[tuple[str, str]]:
    found = []
    for relative in [k for k in SCHEMA_OF if k.endswith("hooks.json")]:
        text = json.dumps(_load(relative))
        found += [(relative, c) for c in re.findall(r'"command": "([^"]+)"', text)]
    for relative in ("plugins/claude/.mcp.json", "plugins/codex/.mcp.json", "plugins/antigravity/mcp_config.json"):
        found += [(relative, s["command"]) for s in _load(relative)["mcpServers"].values()]
    found += [
        ("plugins/gemini/gemini-extension.json", s["command"])
        for s in _load("plugins/gemini/gemini-extension.json")["mcpServers"].values()
    ]
    return found


def test_every_command_is_an_installed_cargento_console_script() -> None:
    scripts = {e.name for e in entry_points(group="console_scripts")}
    commands = _commands()
    assert len(commands) > 20
    for relative, command in commands:
        program = shlex.split(command)[0]
        assert program in scripts and program.startswith("cargento-"), (relative, command)


@pytest.mark.parametrize(
    ("relative", "harness"),
    [
        ("plugins/claude/hooks/hooks.json", "claude"),
        ("plugins/codex/hooks/hooks.json", "codex"),
        ("plugins/gemini/hooks/hooks.json", "gemini"),
    ],
)
def test_every_hook_event_is_one_the_dashboard_lane_understands(relative: str, harness: str) -> None:
    lane = importlib.import_module(f"cargento_harness_{harness}.event_lane").LANE
    events = set(_load(relative)["hooks"])
    assert events and events <= set(lane.events), events - set(lane.events)
    for groups in _load(relative)["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                assert shlex.split(handler["command"])[:2] == ["cargento-event-hook", harness]


def test_the_skill_is_a_valid_skill() -> None:
    for relative in (
        "plugins/claude/skills/cargento/SKILL.md",
        "plugins/codex/skills/cargento/SKILL.md",
        "plugins/gemini/skills/cargento/SKILL.md",
        "plugins/antigravity/skills/cargento/SKILL.md",
    ):
        text = (ROOT / relative).read_text()
        head = re.match(r"^---\nname: (?P<name>.+)\ndescription: (?P<description>.+)\n---\n", text)
        assert head is not None, relative
        assert re.fullmatch(r"[a-z0-9-]{1,64}", head["name"])
        assert 0 < len(head["description"]) <= 1024
        for command in ("--daemon", "--status", "--stop", "ask_operator"):
            assert command in text


def test_the_claude_plugins_mcp_server_answers_a_real_session(tmp_path: Path) -> None:
    [server] = _load("plugins/claude/.mcp.json")["mcpServers"].values()
    bin_dir = str(Path(sys.executable).parent)
    env = {"PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), "CARGENTO_HOME": str(tmp_path)}
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env)

    async def go() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [t.name for t in (await session.list_tools()).tools]

    assert asyncio.run(go()) == ["ask_operator"]


def test_antigravitys_plugin_hooks_name_events_its_lane_understands() -> None:
    lane = importlib.import_module("cargento_harness_antigravity.event_lane").LANE
    for events in _load("plugins/antigravity/hooks.json").values():
        assert set(events) <= set(lane.events)
        for name, entries in events.items():
            handlers = [h for e in entries for h in e.get("hooks", [e])]
            for handler in handlers:
                assert shlex.split(handler["command"]) == ["cargento-event-hook", "antigravity", "--event", name]
