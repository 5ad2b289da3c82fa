"""Unasked checks (``--unasked-readings``): read a session against its typed goal while you are away.

A check runs on an observed state change of a session whose words carry a *typed* goal (an
adopted goal never enables it, and a session with outcome lines and no goal is not checked this
way), reads the goal alone, and raises a departure or nothing: a "consistent" or "unknown" answer
is recorded as a check that ran, never as a reassurance. It stops at :data:`PER_SESSION` checks
per session and :data:`PER_DAY` across the machine per rolling 24 hours; a spent limit is
published so the page can say so. Checks run one at a time, off the board's thread, and the
first board a session is seen on is its baseline, not a change.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from cargento.board import Board, BoardSession

from .account import WorkSource, build_account
from .consent import ConsentStore
from .departures import DeparturesStore
from .intents import Intent, IntentSource
from .limits import TIMEOUT_S
from .providers import Route

__all__ = ["PER_DAY", "PER_SESSION", "UnaskedChecks"]

log = logging.getLogger("cargento_web")

PER_SESSION = 3
PER_DAY = 12
_WINDOW = timedelta(hours=24)


class UnaskedChecks:
    def __init__(
        self,
        *,
        intents: IntentSource,
        departures: DeparturesStore,
        consent: ConsentStore,
        route: Callable[[str], Route],
        env: Mapping[str, str],
        work: WorkSource,
        changed: Callable[[], None],
        quiet: Callable[[], bool] = lambda: False,
        alert: Callable[[str, str, str, str, datetime], str] | None = None,
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        self.intents = intents
        self.departures = departures
        self.consent = consent
        self.route = route
        self.env = env
        self.work = work
        self.changed = changed
        self.quiet = quiet
        self.alert = alert
        self.timeout_s = timeout_s
        self._states: dict[tuple[str, str], str] = {}
        self._queue: queue.Queue[tuple[BoardSession, Intent] | None] = queue.Queue(maxsize=32)
        self._pending: set[tuple[str, str]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, name="unasked-checks", daemon=True)
        self._thread.start()

    def limits(self, now: datetime | None = None) -> dict[str, Any]:
        now = now or datetime.now(UTC)
        recent = [c for c in self.departures.read()["checks"] if _at(c) > now - _WINDOW]
        per_session: dict[str, int] = {}
        for c in recent:
            key = f"{c.get('harness')}/{c.get('sid')}"
            per_session[key] = per_session.get(key, 0) + 1
        return {
            "per_session": PER_SESSION,
            "per_day": PER_DAY,
            "used_today": len(recent),
            "day_spent": len(recent) >= PER_DAY,
            "sessions": per_session,
        }

    def on_board(self, board: Board) -> None:
        typed = {(i.harness, i.sid): i for i in self.intents.every() if i.goal and i.goal_source == "typed"}
        seen: dict[tuple[str, str], str] = {}
        for session in board.sessions:
            key = (session.harness, session.session_id)
            seen[key] = session.state
            before = self._states.get(key)
            if before is None or before == session.state or key not in typed or key in self._pending:
                continue
            if self.quiet():
                continue
            try:
                self._queue.put_nowait((session, typed[key]))
                self._pending.add(key)
            except queue.Full:
                continue
        self._states = seen

    def _work(self) -> None:
        while not self._stop.is_set():
            item = self._queue.get()
            if item is None:
                return
            session, intent = item
            try:
                self._check(session, intent)
            except Exception:
                log.exception("an unasked check failed")
            finally:
                self._pending.discard((session.harness, session.session_id))

    def _check(self, session: BoardSession, intent: Intent) -> None:
        # Building the prompt and running the CLI are imported by the first check, not at start.
        from .prompt import build_prompt, parse_reply
        from .runner import run_call

        limits = self.limits()
        key = f"{session.harness}/{session.session_id}"
        if limits["day_spent"] or limits["sessions"].get(key, 0) >= PER_SESSION:
            return
        route = self.route(session.harness)
        if route.provider is None or route.reader is None or route.path is None or not intent.goal:
            return
        account = build_account(session, self.work, tool_output=self.consent.tool_output_allowed(route.provider))
        prompt = build_prompt(intent.goal, (intent.goal,), session.harness, account)
        at = datetime.now(UTC).isoformat()
        call = run_call(
            route.reader.command(route.path),
            prompt.text,
            env=self.env,
            cancelled=self._stop,
            timeout_s=self.timeout_s,
        )
        verdicts = parse_reply(call.stdout, (intent.goal,)) if call.ending == "answered" else None
        found = verdicts[0].verdict if verdicts else "not confirmed"
        check = {
            "harness": session.harness,
            "sid": session.session_id,
            "at": at,
            "revision": intent.revision,
            "provider": route.provider,
            "found": "departs" if found == "departs" else ("nothing raised" if verdicts else "not confirmed"),
            "state": session.state,
        }
        raised = None
        if verdicts and found == "departs":
            raised = {
                "harness": session.harness,
                "sid": session.session_id,
                "at": at,
                "revision": intent.revision,
                "goal": intent.goal,
                "evidence": verdicts[0].evidence,
                "evidence_stopped": "the account ended at what the board published at the check",
                "provider": route.provider,
            }
        if raised is not None:
            title = f"{session.title or session.display_id} may have drifted"
            alerted = datetime.now(UTC)
            body = f"Your goal: {intent.goal}"
            decided = self.alert(session.harness, session.session_id, title, body, alerted) if self.alert else None
            raised["alert"] = decided or "no notification lane in this run"
            raised["alerted_at"] = alerted.isoformat()
        self.departures.add(check, raised)
        if raised is not None:
            self.intents.record(session.harness, session.session_id, {"kind": "unasked", **raised})
        self.changed()

    def close(self) -> None:
        self._stop.set()
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass
        self._thread.join(5)


def _at(row: Mapping[str, Any]) -> datetime:
    try:
        at = datetime.fromisoformat(str(row.get("at")))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return at if at.tzinfo else at.replace(tzinfo=UTC)
