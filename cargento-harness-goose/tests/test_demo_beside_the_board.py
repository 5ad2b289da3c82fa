"""The Goose demo writes its ``sessions.db`` in the dashboard's own process, beside the board reader.

SQLite maps a database's WAL index (``-shm``) once per process. When the board's read-only
reader is the first connection of the process to map it (the ``-wal``/``-shm`` an earlier write
left behind because a read held the database as it closed), every write the demo makes while
that read is open is refused with ``SQLITE_READONLY``. The demo's schedule tolerates a failed
write, so each refusal used to drop its scripted moment silently (a prompt, a tool call, the
subagent never written) and the live row read oddly until the next cycle; here each write waits
the read out.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.heldreads import HeldReads
from cargento_harness_goose import plugin
from cargento_harness_goose.demo import CYCLE_S, JOBS, LEAD_S, GooseDemo

#: Later than any real clock the tests run under, as in test_demo.
START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)
Viewer = DemoViewer[GooseDemo]

#: Where the turn stands in each cycle (the demo's plan): the subagent spawned at 12 s replies at
#: 30 s, and the session's final reply at 52 s; Goose reads idle once its last write is 90 s old.
AGENT_RUNNING_AT_S = 20.0
IDLE_AT_S = 52.0 + 90.0 + 10.0
CYCLES = 3


def _live(viewer: Viewer, board: Board) -> BoardSession:
    [row] = [r for r in board.sessions if r.session_id == viewer.demo.live.id]
    return row


def test_every_turn_is_written_while_the_board_reads_in_the_same_process(tmp_path: Path) -> None:
    viewer = Viewer(tmp_path / "home", plugin, "goose", start=START)
    store = viewer.demo.store
    reads = HeldReads()
    store.pause = reads.pause
    turns: list[tuple[int, str, str, list[str]]] = []
    for cycle in range(CYCLES):
        begins = LEAD_S + cycle * CYCLE_S
        standing = begins + AGENT_RUNNING_AT_S
        for second in range(int(begins), int(begins + CYCLE_S)):
            reads.hold(store.path)
            viewer.step(second)
            reads.release()
            if second == standing:
                row = _live(viewer, viewer.board(viewer.moment(second)))
                turns.append((cycle, row.state, row.detail, [p.name for p in row.subagents if p.running]))
        assert _live(viewer, viewer.board(viewer.moment(begins + IDLE_AT_S))).state == "idle"
    assert turns == [
        (cycle, "working", f"running 1 subagent: {JOBS[cycle].agent}", [JOBS[cycle].agent]) for cycle in range(CYCLES)
    ]
    assert viewer.demo.schedule.skipped == 0, "no scripted moment was lost"
    assert reads.refusals > 0, "the demo's writes met the read-only WAL index"
