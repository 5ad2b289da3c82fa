"""The core conformance kit run against a representative Gemini CLI store."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_gemini import plugin
from cargento_harness_gemini.fixtures import GeminiStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_store(home: Path) -> None:
    """A working session with todos, a topic and a running subagent; a session waiting on a
    tool call; an old consumer-era session; and files that are not sessions."""
    store = GeminiStore(home)
    t = NOW - timedelta(seconds=80)
    live = store.session("aaaaaaaa-0000-4000-8000-000000000001", cwd="/w/parser", at=t)
    live.prompt("plan the parser work", at=t)
    live.topic("Parser work plan", at=t + timedelta(seconds=2))
    live.todos([("Write the parser", "in_progress"), ("Add tests", "pending")], at=t + timedelta(seconds=4))
    run = live.subagent("generalist", "SUBTASK: survey the grammar", at=t + timedelta(seconds=6))
    run.child.reply("Still reading.", at=NOW - timedelta(seconds=20))
    waiting = store.session("bbbbbbbb-0000-4000-8000-000000000002", cwd="/w/tool", at=t)
    waiting.prompt("run the tests", at=t)
    waiting.wait("", at=NOW - timedelta(seconds=30))
    old_at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    old = store.session("cccccccc-0000-4000-8000-000000000003", cwd="/w/old", at=old_at)
    old.prompt("hello", at=old_at)
    old.reply("Hi.", at=old_at + timedelta(seconds=3))
    chats = store.root / "tmp" / "old" / "chats"
    (chats / "session-2026-03-01T10-00-legacy00.json").write_text('{"sessionId": "legacy", "messages": []}')
    (chats / "session-2026-03-01T10-00-nosessid.jsonl").write_text(
        '{"projectHash": "x"}\n{"id": "m", "type": "user"}\n'
    )


class TestGeminiContract(HarnessContract):
    plugin = plugin
    key = "gemini"
    now = NOW
    relocation_variables = ("GEMINI_CLI_HOME",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        sid = "moved-0000" if target else "default-0000"
        chat = GeminiStore(home, gemini_cli_home=target).session(
            sid, cwd="/w/b" if target else "/w/a", at=NOW - timedelta(seconds=30)
        )
        chat.prompt("b" if target else "a", at=NOW - timedelta(seconds=30))
        return sid

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / ".gemini"

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_store(home)
        return {}


class TestGeminiRelocatedContract(HarnessContract):
    """The same store under ``GEMINI_CLI_HOME``."""

    plugin = plugin
    key = "gemini"
    now = NOW
    fuzz_examples = 10

    def make_home(self, home: Path) -> Mapping[str, str]:
        elsewhere = home / "gcli"
        store = GeminiStore(home, gemini_cli_home=elsewhere)
        chat = store.session("dddddddd-0000-4000-8000-000000000004", cwd="/w/moved", at=NOW - timedelta(seconds=5))
        chat.prompt("hi", at=NOW - timedelta(seconds=5))
        return {"GEMINI_CLI_HOME": str(elsewhere)}
