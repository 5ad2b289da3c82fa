"""The core conformance contract, over a store with every part this harness writes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_claude import plugin
from cargento_harness_claude.fixtures import ClaudeStore

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
T = NOW.timestamp()


class TestClaudeContract(HarnessContract):
    plugin = plugin
    key = "claude"
    now = NOW
    relocation_variables = ("CLAUDE_CONFIG_DIR",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        sid = "33333333-3333-4333-8333-333333333333" if target else "11111111-1111-4111-8111-111111111111"
        ClaudeStore(home, root=target).session(sid).prompt("relocated" if target else "in the default root", T - 10)
        return sid

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / "projects"

    def make_home(self, home: Path) -> Mapping[str, str]:
        store = ClaudeStore(home)
        lead = store.session(
            "11111111-1111-4111-8111-111111111111", cwd="/w/proj", agent_setting="spacedock:first-officer"
        )
        lead.bookkeeping(T - 300)
        lead.prompt("Fix the flaky test", T - 300)
        call = lead.tool("Bash", T - 290, input={"command": "pytest"}, tokens=40)
        lead.result(call, T - 280, error=True)
        lead.title("Flaky test fix")
        agent = lead.subagent("a0123456789abcdef", agent_type="Explore", description="Explore the repo", at=T - 270)
        agent.prompt("look around", T - 270)
        agent.end_turn(T - 250, text="found it", tokens=9)
        agent.finish(T - 250)
        flow = lead.subagent("afedcba9876543210", description="Fan-out worker", workflow="run-1", at=T - 60)
        flow.prompt("work", T - 60)
        flow.tokens(30, T - 20)
        lead.wait("Which database?", T - 30)
        store.task(lead.session_id, "1", "Write tests", status="in_progress", active_form="Writing tests", at=T - 200)
        store.task(lead.session_id, "2", "Ship it", at=T - 190)
        store.team(lead, [("reviewer", T - 400), ("parked", T - 400)], at=T - 400)
        mate = store.session(
            "22222222-2222-4222-8222-222222222222", cwd="/w/proj", agent_name="reviewer", team_name="session-11111111"
        )
        mate.prompt("review the diff", T - 350)
        mate.end_turn(T - 340, text="looks fine", tokens=12)
        store.pid_file(lead, 4242, status="waiting", waiting_for="input needed", at=T - 30, started_at=T - 400)
        store.metadata_only("33333333-3333-4333-8333-333333333333", at=T - 100)
        store.task("44444444-4444-4444-8444-444444444444", "1", "Orphan task", at=T - 100)
        return {}
