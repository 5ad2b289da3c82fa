"""The core conformance kit run against representative OpenCode stores."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento.testing.homes import install_golden
from cargento_harness_opencode import plugin
from cargento_harness_opencode.fixtures import OpenCodeStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def build_store(home: Path) -> None:
    """A working session with a running child session and todos, a session parked at a
    permission prompt, an idle one, an archived one, and a non-SQLite ``opencode-x.db``."""
    store = OpenCodeStore(home)
    t = NOW - timedelta(seconds=60)
    live = store.session(cwd="/w/proj", at=t, title="Refactor the parser")
    live.prompt("refactor the parser", at=t + timedelta(seconds=1))
    live.reply(at=t + timedelta(seconds=2))
    child = live.subagent("Explore the code", at=t + timedelta(seconds=3), agent="explore")
    child.prompt("explore the code", at=t + timedelta(seconds=3))
    child.reply(at=t + timedelta(seconds=4))
    child.text("looking", at=t + timedelta(seconds=50))
    live.todos(
        [("Parse", "in_progress", "high"), ("Test", "pending", "medium"), ("Old", "cancelled", "low")],
        at=t + timedelta(seconds=5),
    )
    waiting = store.session(cwd="/w/site", at=t, title="Deploy")
    waiting.prompt("deploy the site", at=t + timedelta(seconds=2))
    waiting.reply(at=t + timedelta(seconds=3))
    waiting.wait("bash", at=t + timedelta(seconds=4), input={"command": "make deploy"})
    old = NOW - timedelta(hours=3)
    done = store.session(cwd="/w/lib", at=old, title="Bump version")
    done.prompt("bump the version", at=old)
    done.reply(at=old + timedelta(seconds=1))
    done.end_turn(at=old + timedelta(seconds=4), output_tokens=12)
    gone = store.session(cwd="/w/gone", at=old, title="Archived")
    gone.archive(at=old + timedelta(seconds=9))
    (store.data_dir / "opencode-x.db").write_bytes(b"not a database at all")


class TestOpenCodeContract(HarnessContract):
    plugin = plugin
    key = "opencode"
    now = NOW

    def make_home(self, home: Path) -> Mapping[str, str]:
        build_store(home)
        return {}


class TestOpenCodeGoldenContract(HarnessContract):
    """A store the real CLI wrote, db + -wal + -shm (the no-write check covers all three)."""

    plugin = plugin
    key = "opencode"
    fuzz_examples = 15
    now = datetime.fromtimestamp(1796024742.5433161, UTC)

    def make_home(self, home: Path) -> Mapping[str, str]:
        install_golden("opencode-1.18.33/C-subagent", home, ".local")
        return {}
