"""The core conformance contract over representative Cursor CLI stores."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from cargento.testing import HarnessContract
from cargento_harness_cursor import plugin
from cargento_harness_cursor.fixtures import recipe_gate, recipe_working

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class TestCursorContract(HarnessContract):
    plugin = plugin
    key = "cursor"
    now = NOW

    def make_home(self, home: Path) -> Mapping[str, str]:
        recipe_working(home, NOW, home / "w" / "proj")
        recipe_gate(home, NOW, home / "w" / "migrate")
        return {}
