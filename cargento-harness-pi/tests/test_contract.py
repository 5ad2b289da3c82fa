"""The core conformance contract over a nested store with branches, tools and a flat store."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

from cargento.testing import HarnessContract
from cargento_harness_pi import plugin
from cargento_harness_pi.fixtures import PiStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_home(home: Path, now: datetime = NOW) -> None:
    t0 = now - timedelta(minutes=10)
    store = PiStore(home)
    s = store.session("01a22b67-0000-7000-8000-000000000101", cwd="/w/app", at=t0)
    s.model_change("openai-codex", "gpt-5.6-sol", t0)
    first = s.prompt("Fix the flaky test", t0)
    call = s.tool("bash", t0 + timedelta(seconds=5), arguments={"command": "npm test"})
    s.tool_result(call, "bash", "1 failing", t0 + timedelta(seconds=20))
    s.reply("Found it.", t0 + timedelta(seconds=30))
    s.session_info("Flaky test", t0 + timedelta(seconds=31))
    s.branch(first)
    s.prompt("Try the other approach", now - timedelta(seconds=200))
    s.spacedock_boot("/w/app/docs/dev", "/w/app/docs/dev/.state", now - timedelta(seconds=190))
    s.compaction(now - timedelta(seconds=180), output=300)
    s.tool("bash", now - timedelta(seconds=170), arguments={"command": "sleep 600"})
    flat = PiStore(home, root=home / ".pi" / "agent" / "sessions", flat=True)
    f = flat.session("01a22b67-0000-7000-8000-000000000102", cwd="/w/lib", at=now - timedelta(hours=3))
    f.prompt("Summarise the changelog", now - timedelta(hours=3))
    f.reply("Done.", now - timedelta(hours=3), provider="anthropic", model="claude-sonnet-5")


class TestPiContract(HarnessContract):
    plugin = plugin
    key = "pi"
    now: ClassVar[datetime | None] = NOW
    relocation_variables = ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR")

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        if target is None:
            store = PiStore(home)
        elif variable == "PI_CODING_AGENT_DIR":
            store = PiStore(home, root=target / "sessions")
        else:
            store = PiStore(home, root=target, flat=True)
        session = store.session(cwd="/w/moved" if target else "/w/default", at=NOW - timedelta(minutes=1), eager=True)
        session.prompt("hello", NOW - timedelta(seconds=50))
        return session.session_id

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / "sessions" if variable == "PI_CODING_AGENT_DIR" else target

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_home(home)
        (home / ".pi/agent/sessions/junk.jsonl").write_bytes(b'{"type":"other"}\n')
        return {}
