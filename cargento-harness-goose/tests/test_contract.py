"""The core conformance contract over representative Goose stores."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_goose import plugin
from cargento_harness_goose.fixtures import recipe_idle, recipe_working

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class TestGooseContract(HarnessContract):
    plugin = plugin
    key = "goose"
    now = NOW

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
