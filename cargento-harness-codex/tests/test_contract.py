"""The core conformance contract, over a home with a plan, nested subagents and a legacy rollout."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

from cargento.testing import HarnessContract
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_home(home: Path, now: datetime = NOW) -> dict[str, str]:
    t0 = now - timedelta(minutes=5)
    store = CodexStore(home)
    lead = store.session("01a22b67-0000-7000-8000-000000000001", cwd="/w/proj", at=t0)
    lead.turn_start(t0)
    lead.turn_context("gpt-5-codex", t0)
    lead.injected("<environment_context>\n  <cwd>/w/proj</cwd>\n</environment_context>", t0)
    lead.prompt("Refactor the fetcher", t0 + timedelta(seconds=1))
    lead.agent("I'll read the fetcher first.", t0 + timedelta(seconds=2))
    lead.plan(
        [("Read fetcher", "completed"), ("Add retry", "in_progress"), ("Test", "pending")], t0 + timedelta(seconds=3)
    )
    lead.tokens(
        40,
        t0 + timedelta(seconds=3),
        limits={"primary": {"used_percent": 12.5, "window_minutes": 300, "resets_at": 1796030000}},
    )
    child = lead.spawn(
        "01a22b67-0000-7000-8000-000000000002", nickname="Gibbs", at=t0 + timedelta(seconds=4), cwd="/w/proj"
    )
    child.turn_start(t0 + timedelta(seconds=4))
    child.turn_context("gpt-5-codex-mini", t0 + timedelta(seconds=4))
    child.prompt("Check the tests", t0 + timedelta(seconds=4))
    child.tokens(9, now - timedelta(seconds=20))
    grandchild = child.spawn("01a22b67-0000-7000-8000-000000000003", nickname="Hopper", at=now - timedelta(seconds=15))
    grandchild.turn_start(now - timedelta(seconds=15))
    grandchild.tokens(5, now - timedelta(seconds=10))
    call = lead.tool("exec_command", now - timedelta(seconds=30), arguments={"cmd": "pytest"})
    lead.tool_output(call, now - timedelta(seconds=25))
    old = store.session(
        "01a22b60-0000-7000-8000-000000000009", cwd="/w/other", at=now - timedelta(hours=2), legacy=True
    )
    old.turn_start(now - timedelta(hours=2))
    old.prompt("Explain the build", now - timedelta(hours=2))
    old.agent("Reading the Makefile.", now - timedelta(hours=2))
    old.tokens(30, now - timedelta(hours=2))
    old.end_turn(now - timedelta(hours=2) + timedelta(seconds=30))
    return {}


class TestCodexContract(HarnessContract):
    plugin = plugin
    key = "codex"
    now: ClassVar[datetime | None] = NOW
    relocation_variables = ("CODEX_HOME",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        sid = "01a22b67-0000-7000-8000-0000000000f3" if target else "01a22b67-0000-7000-8000-0000000000f2"
        CodexStore(home, root=target).session(sid, cwd="/w/p", at=NOW - timedelta(minutes=1))
        return sid

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / "sessions"

    def make_home(self, home: Path) -> Mapping[str, str]:
        return build_home(home)
