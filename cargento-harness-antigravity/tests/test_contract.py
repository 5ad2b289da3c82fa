"""The core conformance kit run against a representative Antigravity CLI store."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_antigravity import plugin
from cargento_harness_antigravity.fixtures import AntigravityStore, step_metadata

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_store(home: Path) -> None:
    """A WAL-held root conversation with nested subagents, a stale one, a broken protobuf step,
    a database of random bytes, the workspace cache and a CLI log."""
    store = AntigravityStore(home)
    t = NOW - timedelta(minutes=5)
    store.start_cli(["/w/proj", "/w/lib"], t)
    root = store.conversation("4c1d0000-0000-4000-8000-000000000001", at=t, workspace="/w/proj", wal_held=True)
    root.prompt("show open issues", at=t + timedelta(seconds=5))
    root.tool("Ran gh issue list", "gh issue list", at=t + timedelta(seconds=20))
    root.respond(at=t + timedelta(seconds=30), output_tokens=120)
    child = store.conversation(
        "7e2a0000-0000-4000-8000-000000000002",
        at=NOW - timedelta(seconds=60),
        parent=root,
        role="Research Auditor",
        kind="research",
    )
    child.respond(at=NOW - timedelta(seconds=20), output_tokens=300)
    grandchild = store.conversation(
        "9f3b0000-0000-4000-8000-000000000003", at=NOW - timedelta(seconds=40), parent=child, kind="explore"
    )
    grandchild.step(
        15, step_metadata(NOW - timedelta(seconds=15), output_tokens=50)[:-3], at=NOW - timedelta(seconds=15)
    )
    old = store.conversation("1a2b0000-0000-4000-8000-000000000004", at=NOW - timedelta(hours=3), workspace="/w/old")
    old.prompt("summarise the changelog", at=NOW - timedelta(hours=3))
    old.respond(at=NOW - timedelta(hours=3) + timedelta(seconds=9), output_tokens=40)
    junk = store.root / "conversations" / "ffff0000-0000-4000-8000-00000000000f.db"
    junk.write_bytes(os.urandom(2048))


class TestAntigravityContract(HarnessContract):
    plugin = plugin
    key = "antigravity"
    now = NOW
    fuzz_examples = 60
    relocation_variables = ("GEMINI_CLI_HOME",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        sid = "moved-0" if target else "default-0"
        AntigravityStore(home, gemini_cli_home=target).conversation(sid, at=NOW - timedelta(minutes=1))
        return sid

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / ".gemini" / "antigravity-cli"

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_store(home)
        return {}
