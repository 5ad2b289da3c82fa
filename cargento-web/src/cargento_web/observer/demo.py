"""``--demo``: one session with a recorded departure, one with a consistent reading, and a goal
summary on record.

Seeded once, on the first board holding two annotated sessions (the annotations feature seeds
its words on the same board, before this runs). The departure goes on a session with no later
direction to settle (a departure is never stated while one is unsettled), the consistent reading
on another; each gets one stored reading and its attempt in its sidecar, recorded against its
words too, so the Drift section, the Drift mark, the Sessions ranking and DEPARTURES RAISED TO
YOU all show. A third session whose harness records your prompts, with no words typed, gets one
goal summary (marked ``demo``: its line is made from the session's own latest prompt, since
nothing is sent), so the proposal beside the goal field shows. Nothing is sent anywhere and the
budget is not touched.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from cargento.board import Board, BoardSession

from .intents import Intent
from .service import later_directions
from .summaries import SUMMARY_CHARS

if TYPE_CHECKING:
    from . import Observer

__all__ = ["seed"]

#: Evidence the demo readings cite, in the shape the account has: work results only where the
#: harness's plugin keeps a work record (the ``work_record`` hook), instructions and dispatches
#: elsewhere.
_WORK = (
    "work result: bash npm test — output ends: Tests: 31 passed, 31 total",
    "work result: bash git push origin main — output ends: main -> main",
)
_OTHER = (
    "dispatch: tests (no longer running) — the session's dispatches cover this line",
    "instruction (latest): the session was told to push the branch, which this line rules out",
)


def _reading(observer: Observer, session: BoardSession, intent: Intent, at: datetime, *, departs: bool) -> None:
    reads_work = observer.declared.reads_work(session.harness)
    consistent, departing = _WORK if reads_work else _OTHER
    preference = observer.declared.preference(session.harness)
    provider = preference[0].key if preference else None
    rows = [
        {
            "n": n,
            "line": line,
            "verdict": "departs" if departs and n == len(intent.items) else "consistent",
            "evidence": departing if departs and n == len(intent.items) else consistent,
        }
        for n, line in enumerate(intent.items, 1)
    ]
    reading = {
        "kind": "reading",
        "at": at.isoformat(),
        "revision": intent.revision,
        "provider": provider,
        "goal_source": intent.goal_source,
        "rows": rows,
        "departed": departs,
        "withheld": False,
        "tool_output": reads_work,
        "bytes": 2048,
        "left_out": 0,
        "demo": True,
    }
    reading["recorded"] = observer.annotated.record(session.harness, session.session_id, reading)
    attempt = {
        "attempt": 1,
        "provider": provider,
        "revision": intent.revision,
        "started_at": (at - timedelta(seconds=20)).isoformat(),
        "ended_at": at.isoformat(),
        "spent": True,
        "ending": "stored",
    }

    def change(data: dict[str, Any]) -> None:
        if not data.get("readings"):
            data["attempts"] = [attempt]
            data["readings"] = [reading]

    observer.sidecars.update(session.harness, session.session_id, change)


def _summary(observer: Observer, board: Board) -> None:
    """One goal summary on record, on a session with a prompt of its own and no words typed."""
    adopts = set(observer.declared.adopt_harnesses())
    session = next(
        (
            s
            for s in board.sessions
            if s.harness in adopts
            and s.instruction is not None
            and s.instruction.source != "agent"
            and observer.annotated.intent(s.harness, s.session_id) is None
        ),
        None,
    )
    found = observer.declared.provider(observer.declared.summary_provider())
    if session is None or session.instruction is None or found is None:
        return
    first = " ".join(session.instruction.text.split())
    text = f"Get this done: {first}"
    text = text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"
    at = datetime.now(UTC) - timedelta(minutes=3)
    summary = {"at": at.isoformat(), "provider": found.key, "label": found.label, "text": text, "demo": True}
    attempt = {
        "attempt": 1,
        "provider": found.key,
        "started_at": (at - timedelta(seconds=8)).isoformat(),
        "ended_at": at.isoformat(),
        "spent": True,
        "ending": "stored",
    }

    def change(data: dict[str, Any]) -> None:
        if not data.get("summaries"):
            data["summaries"] = [summary]
            data["summary_attempts"] = [attempt]

    observer.sidecars.update(session.harness, session.session_id, change)


def seed(observer: Observer, board: Board) -> bool:
    """Seed the demo's two readings; True once done."""
    annotated: list[tuple[BoardSession, Intent]] = []
    for session in board.sessions:
        found = observer.annotated.intent(session.harness, session.session_id)
        if found is not None and found.items:
            annotated.append((session, found))
    if len(annotated) < 2:
        return False
    calm = [pair for pair in annotated if not later_directions(pair[0], pair[1])]
    working = [pair for pair in annotated if observer.declared.reads_work(pair[0].harness)]
    departed = (calm or working or annotated)[0]
    consistent = next(pair for pair in annotated if pair[0].key != departed[0].key)
    now = datetime.now(UTC)
    _reading(observer, departed[0], departed[1], now - timedelta(minutes=12), departs=True)
    _reading(observer, consistent[0], consistent[1], now - timedelta(minutes=5), departs=False)
    _summary(observer, board)
    observer.context.changed()
    return True
