"""The core conformance kit run against representative Copilot CLI stores."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento.testing.homes import install_golden
from cargento_harness_copilot import plugin
from cargento_harness_copilot.fixtures import CopilotStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_store(home: Path) -> None:
    """A working session with a subagent, todos and ledger rows; a session standing at a
    permission dialog; an ended one; a legacy-folder one; a folder with no events.jsonl."""
    store = CopilotStore(home)
    t = NOW - timedelta(seconds=60)
    live = store.session("11111111-0000-4000-8000-000000000001", cwd="/w/proj", at=t)
    live.prompt("refactor the parser", at=t + timedelta(seconds=1))
    live.tokens(120, at=t + timedelta(seconds=5))
    agent = live.subagent_start("explorer", at=t + timedelta(seconds=6), agent_type="explore", model="gpt-5-mini")
    live.tool("grep", at=t + timedelta(seconds=7), agent_id=agent)
    live.tokens(30, at=t + timedelta(seconds=8), agent_id=agent)
    live.todos(
        [
            ("parse", "Parse the store", "in_progress"),
            ("test", "Write tests", "pending"),
            ("docs", "Document it", "done"),
        ],
        at=t + timedelta(seconds=9),
    )
    store.ledger_row(live.session_id, at=t + timedelta(seconds=5), output_tokens=120, nano_aiu=2_500_000_000)
    store.ledger_row(
        live.session_id, at=t + timedelta(seconds=8), output_tokens=30, nano_aiu=500_000_000, agent_id=agent
    )
    waiting = store.session("22222222-0000-4000-8000-000000000002", cwd="/w/site", at=t)
    waiting.prompt("deploy the site", at=t + timedelta(seconds=2))
    call = waiting.tool("bash", at=t + timedelta(seconds=4), arguments={"command": "make deploy"})
    waiting.wait(at=t + timedelta(seconds=4), kind="shell", call=call, detail="make deploy")
    old = NOW - timedelta(hours=3)
    done = store.session("33333333-0000-4000-8000-000000000003", cwd="/w/lib", at=old)
    done.prompt("bump the version", at=old)
    done.tokens(12, at=old + timedelta(seconds=3))
    done.end_turn(at=old + timedelta(seconds=4))
    done.shutdown(at=old + timedelta(seconds=5))
    legacy = store.session("44444444-0000-4000-8000-000000000004", cwd="/w/old", at=old, legacy=True)
    legacy.prompt("what changed?", at=old)
    (store.root / "session-state" / "55555555-0000-4000-8000-000000000005").mkdir(parents=True)


class TestCopilotContract(HarnessContract):
    plugin = plugin
    key = "copilot"
    now = NOW
    relocation_variables = ("COPILOT_HOME",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        session = CopilotStore(home, root=target).session(
            cwd="/w/b" if target else "/w/a", at=NOW - timedelta(seconds=30)
        )
        session.prompt("moved" if target else "in the default place", at=NOW - timedelta(seconds=29))
        return session.session_id

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_store(home)
        return {}


class TestCopilotRelocatedContract(HarnessContract):
    """The same store under ``$COPILOT_HOME``."""

    plugin = plugin
    key = "copilot"
    now = NOW
    fuzz_examples = 10

    def make_home(self, home: Path) -> Mapping[str, str]:
        relocated = home / "elsewhere"
        store = CopilotStore(home, root=relocated)
        s = store.session(cwd="/w/proj", at=NOW - timedelta(seconds=30))
        s.prompt("hello", at=NOW - timedelta(seconds=29))
        return {"COPILOT_HOME": str(relocated)}


class TestCopilotGoldenContract(HarnessContract):
    """A store the real CLI wrote, with the ledger's -wal and -shm present (no-write check)."""

    plugin = plugin
    key = "copilot"
    fuzz_examples = 15
    now = datetime.fromtimestamp(1796025701.3317096, UTC)

    def make_home(self, home: Path) -> Mapping[str, str]:
        install_golden("copilot-1.0.102/D1-permission-wait", home, ".copilot")
        return {}
