"""The core conformance contract over representative Goose stores."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import GooseStore, recipe_idle, recipe_working

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class TestGooseContract(HarnessContract):
    plugin = plugin
    key = "goose"
    now = NOW
    relocation_variables = ("XDG_DATA_HOME",)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        session = GooseStore(home, data_home=target).session(
            working_dir="/w/moved" if target else "/w/usual",
            created_at=NOW - timedelta(minutes=1),
            session_id="20261130_2" if target else "20261130_1",
        )
        session.prompt("hello", at=NOW - timedelta(seconds=50))
        return session.id

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        return target / "goose" / "sessions" / "sessions.db"

    def make_home(self, home: Path) -> Mapping[str, str]:
        recipe_working(home, NOW)
        return {}


class TestGooseContractRollbackJournal(HarnessContract):
    """The same contract over a rollback-journal database holding one idle session."""

    plugin = plugin
    key = "goose"
    now = NOW
    fuzz_examples = 15

    def make_home(self, home: Path) -> Mapping[str, str]:
        recipe_idle(home, NOW, wal=False)
        return {}
