"""Under ``--demo``, a session asks the reader a question now and then, so the ask lane shows
in NEEDS YOU NOW, on the session's row and on its page, and can be answered from the page.

The asking session is one of the demo board's live sessions (the questions name it, as a real
harness would through its MCP server's environment). Answering one changes nothing but the
question: no agent is waiting in the demo.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from cargento.board import Board

from cargento_web.ask.questions import Asked, Questions, Refused

__all__ = ["DEMO_QUESTIONS", "DemoAsker"]

#: What the demo's sessions ask, in turn: (question, options).
DEMO_QUESTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "The migration drops the legacy_orders table. Run it against staging now, or wait for the backup?",
        ("Run it now", "Wait for the backup", "Skip the migration"),
    ),
    (
        "Two tests still fail on Windows paths. Fix them in this branch or open a follow-up issue?",
        ("Fix them here", "Open a follow-up"),
    ),
    (
        "The API client can retry with exponential backoff or fail fast. Which should the default be?",
        ("Retry with backoff", "Fail fast", "Make it a setting"),
    ),
)
#: Seconds between demo questions, and how long each waits.
DEMO_EVERY_S = 40.0
DEMO_TIMEOUT_S = 150


class DemoAsker:
    """A background thread raising :data:`DEMO_QUESTIONS` in turn while none is open."""

    def __init__(
        self,
        questions: Questions,
        *,
        latest_board: Callable[[], Board | None],
        raised: Callable[[], None],
        clock: Callable[[], datetime],
        every_s: float = DEMO_EVERY_S,
    ) -> None:
        self.questions = questions
        self.latest_board = latest_board
        self.raised = raised
        self.clock = clock
        self.every_s = every_s
        self._stop = threading.Event()
        self._turn = 0
        self._last_asked: datetime | None = None
        self._thread = threading.Thread(target=self._run, name="cargento-ask-demo", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def asker(self) -> tuple[str, str, str | None] | None:
        """The live demo session that asks: a working row (one that could be waiting on a
        tool call), else any row that is not ended; the newest first, and a row at risk (a
        failed-tool loop, a long turn) last, since a question would move it out of At risk and
        the showroom would lose that surface while it stands."""
        board = self.latest_board()
        if board is None:
            return None
        live = [s for s in board.sessions if not s.ended]
        live.sort(
            key=lambda s: (
                s.loop is not None or bool(s.turn and s.turn.long),
                s.state != "working",
                -(s.last_active_at.timestamp() if s.last_active_at else 0),
            )
        )
        return (live[0].harness, live[0].session_id, live[0].project) if live else None

    def step(self) -> bool:
        """Expire what is due; ask the next question when none is open. True when it asked."""
        now = self.clock()
        expired = self.questions.expire(now)
        if expired:
            self.raised()
        if self.questions.outstanding(now):
            return False
        if self._last_asked is not None and now - self._last_asked < timedelta(seconds=self.every_s):
            return False
        who = self.asker()
        if who is None:
            return False
        text, options = DEMO_QUESTIONS[self._turn % len(DEMO_QUESTIONS)]
        self._turn += 1
        try:
            self.questions.register(
                Asked(
                    harness=who[0],
                    session_id=who[1],
                    project=who[2],
                    text=text,
                    options=options,
                    timeout_s=DEMO_TIMEOUT_S,
                ),
                now,
            )
        except Refused:
            return False
        self._last_asked = now
        self.raised()
        return True

    def _run(self) -> None:
        # Once a second: expire what is due; the first question comes once the board has been
        # built, the next a while after the last one closed.
        while not self._stop.wait(1.0):
            self.step()
