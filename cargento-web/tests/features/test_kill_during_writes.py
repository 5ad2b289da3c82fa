"""kill -9 at any moment of a write leaves every store the server keeps readable: the previous
version or the next, never half of one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from cargento_web.dismissals.store import DISMISSALS_FILE, DismissalStore, parse_marks
from cargento_web.history.store import HISTORY_FILE, HistoryStore, parse_history
from cargento_web.runtime.stores import EndsStore

WRITER = r"""
import sys, itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path
from cargento_web.history.store import HistoryStore, Observation
from cargento_web.dismissals.store import DismissalStore
from cargento_web.runtime.stores import EndsStore, End

folder = Path(sys.argv[1])
history = HistoryStore(folder, min_interval_s=0)
history.load()
marks = DismissalStore(folder)
marks.load()
ends = EndsStore(folder, limit=50)
ends.load(datetime.now(UTC))
print("ready", flush=True)
for i in itertools.count():
    now = datetime.now(UTC)
    history.record([Observation(harness="claude", session_id=f"s{i % 40}", kind="state", at=now, source="store",
                                state="working", detail="x" * (i % 300))])
    history.flush()
    marks.mark("claude", f"s{i % 60}", now)
    ends.record(End(harness="claude", session_id=f"s{i}", at=now, reason="r" * (i % 50)), now)
"""


def test_kill_9_mid_write_leaves_every_store_readable(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    for round_ in range(12):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(folder)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.05 + (round_ % 5) * 0.037)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        history = (folder / HISTORY_FILE).read_bytes()
        assert parse_history(history) is not None, f"round {round_}: the history reads whole"
        assert parse_marks((folder / DISMISSALS_FILE).read_bytes()) is not None, f"round {round_}: the marks read"
        ends = EndsStore(folder)
        ends.load(datetime.now(UTC))
        assert ends.reset is None, f"round {round_}: the ends read ({ends.reset})"
        reread = HistoryStore(folder)
        reread.load()
        assert reread.reset is None and len(reread) > 0
        marks = DismissalStore(folder)
        marks.load()
        assert marks.reset is None
    assert not list(folder.glob("*.unreadable-*")), "nothing was ever set aside"
