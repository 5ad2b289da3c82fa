"""The core conformance kit run against a representative Droid store."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_droid import plugin
from cargento_harness_droid.fixtures import DroidSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_store(home: Path) -> None:
    """A working session (new layout), an idle one (older layout), a flat one and junk."""
    t = NOW - timedelta(seconds=40)
    live = DroidSession.create(home, "9e2f0c1a-0000-4000-8000-000000000001", cwd="/w/proj", title="Fix login", at=t)
    live.prompt("fix the login form", at=t)
    call = live.tool("Execute", at=t + timedelta(seconds=5), input={"command": "npm test"})
    live.tool_result(call, at=t + timedelta(seconds=20), output="1 failing")
    live.tool("Edit", at=t + timedelta(seconds=30), input={"file": "login.ts"})
    live.settings(at=t)
    old = NOW - timedelta(hours=2)
    legacy = DroidSession.create(
        home, "7b1d0c1a-0000-4000-8000-000000000002", cwd="/w/lib", at=old, layout="projects", project="lib"
    )
    legacy.prompt("bump the version", at=old)
    legacy.reply("Done.", at=old + timedelta(seconds=9))
    flat = DroidSession.create(
        home, "5c3e0c1a-0000-4000-8000-000000000003", cwd=None, at=old, layout="flat", header=False
    )
    flat.prompt("what is in here?", at=old)
    junk = home / ".factory" / "sessions" / "-w-proj" / "junk.jsonl"
    junk.write_bytes(b"\xff{not json\n")


class TestDroidContract(HarnessContract):
    plugin = plugin
    key = "droid"
    now = NOW

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_store(home)
        return {}
