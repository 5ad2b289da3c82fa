"""The Claude demo as a showroom: a long turn and a failed-tool loop are on the board at once."""

from __future__ import annotations

from pathlib import Path

from cargento.models import Simulation
from cargento.testing.demo import DemoViewer, board_at
from cargento_harness_claude import plugin
from cargento_harness_claude.stuck import Showroom, StuckSession

TITLE = "Invoice suite against the new ledger"


def test_the_stuck_session_runs_past_15_minutes_in_a_failed_tool_loop_throughout_the_first_minute(
    tmp_path: Path,
) -> None:
    viewer: DemoViewer[Showroom] = DemoViewer(tmp_path / "home", plugin, "claude")
    assert isinstance(viewer.demo, Showroom)
    assert any(isinstance(p, StuckSession) for p in viewer.demo.parts)
    for second in range(0, 61, 10):
        at = viewer.moment(second)
        viewer.demo.step(at)
        row = next(s for s in board_at(viewer.builder, at).sessions if s.title == TITLE)
        assert row.state == "working", second
        assert row.turn is not None and row.turn.long and row.turn.elapsed_s >= 15 * 60
        assert row.loop is not None and row.loop.failures >= 4
        assert row.project == "acme/billing"


def test_the_showroom_still_holds_the_cycling_session(tmp_path: Path) -> None:
    viewer: DemoViewer[Simulation] = DemoViewer(tmp_path / "home", plugin, "claude")
    titles = {s.title for s in board_at(viewer.builder, viewer.moment(0)).sessions}
    assert {"Orders API work", TITLE} <= titles
