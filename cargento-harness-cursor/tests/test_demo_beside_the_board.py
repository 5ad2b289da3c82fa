"""The Cursor demo writes its chat stores in the dashboard's own process, beside the board reader.

SQLite maps a database's WAL index (``-shm``) once per process. When the board's read-only
reader is the first connection of the process to map it (the ``-wal``/``-shm`` an earlier write
left behind because a read held the store as it closed), every write the demo makes while that
read is open is refused with ``SQLITE_READONLY``. The demo's schedule tolerates a failed write,
so each refusal used to drop its scripted moment silently (the permission prompt never opened,
or never answered and left standing until the next cycle); here each write waits the read out.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cargento.board import Board, BoardSession
from cargento.testing.demo import DemoViewer
from cargento.testing.heldreads import HeldReads
from cargento_harness_cursor import plugin
from cargento_harness_cursor.demo import CYCLE_S, LEAD_S, LIVE_TITLE, WAIT_AT_S, WAIT_S, CursorDemo

#: Later than any real clock the tests run under, so a -wal file's real mtime never outranks
#: the simulated write times (as in test_demo).
START = datetime(2031, 6, 1, 12, 0, 0, tzinfo=UTC)
Viewer = DemoViewer[CursorDemo]

#: Where the permission prompt stands in each cycle (the demo's plan): opened at 36 s, answered
#: 20-30 s later and its call's result written a second after that.
STANDING_AT_S = WAIT_AT_S + 2
SETTLED_AT_S = WAIT_AT_S + WAIT_S[1] + 2
CYCLES = 3


def _live(board: Board) -> BoardSession:
    [row] = [r for r in board.sessions if r.title == LIVE_TITLE]
    return row


def test_the_permission_prompt_opens_and_closes_every_cycle_while_the_board_reads_in_the_same_process(
    tmp_path: Path,
) -> None:
    viewer = Viewer(tmp_path / "home", plugin, "cursor", start=START)
    demo = viewer.demo
    reads = HeldReads()
    demo.live.pause = reads.pause  # the subagents' stores, made by the live chat, wait alike
    gates: list[tuple[int, str, str | None]] = []
    for cycle in range(CYCLES):
        begins = LEAD_S + cycle * CYCLE_S
        for second in range(int(begins), int(begins + CYCLE_S)):
            for chat in (demo.live, demo.agent):
                if chat is not None:
                    reads.hold(chat.path)
            viewer.step(second)
            reads.release()
            if second - begins in (STANDING_AT_S, SETTLED_AT_S):
                row = _live(viewer.board(viewer.moment(second)))
                gates.append((cycle, row.state, row.waiting.kind if row.waiting else None))
    assert gates == [
        reading
        for cycle in range(CYCLES)
        for reading in ((cycle, "needs_input", "permission"), (cycle, "working", None))
    ]
    assert demo.schedule.skipped == 0, "no scripted moment was lost"
    assert reads.refusals > 0, "the demo's writes met the read-only WAL index"
