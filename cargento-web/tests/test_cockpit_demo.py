"""The demo's Spacedock workflow: a first officer and an ensign move entities through stages,
and the condition the demo saves trips once an entity is observed entering its stage."""

from __future__ import annotations

from pathlib import Path

from cargento.cli import Options
from cargento.testing.demo import DemoViewer
from cargento_harness_claude import plugin as claude
from cargento_harness_claude.spacedock_demo import CYCLE_S, STAGES, SpacedockDemo
from cargento_web.cockpit import create
from cargento_web.cockpit.extension import DEMO_STAGE
from cargento_web.extensions import ExtensionContext
from cargento_web.settings import Settings


def test_the_demo_moves_entities_and_its_saved_condition_trips(tmp_path: Path) -> None:
    viewer = DemoViewer(tmp_path / "home", claude, "claude", SpacedockDemo)
    changes: list[int] = []
    cockpit = create(
        ExtensionContext(
            options=Options(demo=True),
            settings=Settings(),
            builder=viewer.builder,
            hub=None,
            state_dir=tmp_path / "state",
            env=viewer.env,
            changed=lambda: changes.append(1),
            latest_board=lambda: None,
            demo=True,
        )
    )
    board = viewer.at(1)
    officer = next(s for s in board.sessions if s.role == "spacedock:first-officer")
    assert any(s.role == "spacedock:ensign" for s in board.sessions)
    cockpit.on_board(board)
    [workflow] = cockpit.workflows.values()
    assert workflow.stages == STAGES and workflow.first_officer == officer.key
    start = workflow.current()
    held = [e.slug for e in workflow.entities if e.held_by]
    assert held == [next(s for s, st in start.items() if st == "implementation")], "the ensign's entity is held"
    doc = cockpit.document()["cockpit"]["tripwires"]
    assert [(r["stage"], r["state"], r["baseline"]) for r in doc["rules"]] == [(DEMO_STAGE, "armed", True)]
    moved_at = None
    for second in range(2, int(CYCLE_S * 3)):
        cockpit.on_board(viewer.at(second))
        if cockpit.document()["cockpit"]["tripwires"]["rules"][0]["state"] == "tripped":
            moved_at = second
            break
    assert moved_at is not None, "an entity entered the watched stage within three moves"
    tripped = cockpit.document()["cockpit"]["tripwires"]["rules"][0]["tripped"]
    assert tripped["entity"] == held[0] and tripped["session"] == officer.key
    assert cockpit.workflows[workflow.dir].current()[held[0]] == DEMO_STAGE
    assert changes, "the document's change was announced"
