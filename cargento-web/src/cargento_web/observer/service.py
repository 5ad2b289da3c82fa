"""Readings on request: one background call per session, its steps published, Cancel.

:meth:`Readings.start` is called by ``POST /api/reading`` once every refusal has been ruled out
and the budget reservation is made. The call runs in a worker thread through three real steps
(:func:`steps_for`): preparing what is sent (the account and the prompt), waiting for the named
provider, checking the reply. Each step change moves the published document, so every tab shows
the same step. The attempt is recorded in the session's sidecar however it ends:

* ``stored``: the reply named a verdict per line; the reading is recorded against the words;
* ``failed``: the call failed, timed out or answered something that is not a reading; its
  result could not be confirmed, and nothing retries it;
* ``cancelled``: Cancel stopped it; it still counts once the prompt was being sent, and spends
  nothing (its reservation released) when it landed before;
* ``interrupted``: the server stopped (or, found at the next start, died) mid-reading.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import attrs
from cargento.board import BoardSession
from cargento.sharedrepr import shared_repr

from .account import WorkSource, build_account
from .budget import BudgetStore
from .calls import ModelCalls
from .consent import ConsentStore
from .intents import Intent, IntentSource
from .limits import TIMEOUT_S
from .providers import Route
from .sidecars import Sidecars, attempts_made

if TYPE_CHECKING:
    from .runner import Call

__all__ = ["Flight", "Readings", "later_directions"]

log = logging.getLogger("cargento_web")


def steps_for(provider_label: str) -> tuple[str, str, str]:
    return ("Preparing what is sent", f"Waiting for the {provider_label}", "Checking the reply")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def later_directions(session: BoardSession | None, intent: Intent) -> list[dict[str, Any]]:
    """Every instruction given after the newest save (and not settled), with its time."""
    if session is None or session.instruction is None or session.instruction.at is None:
        return []
    if intent.unsettled_after is None or session.instruction.at <= intent.unsettled_after:
        return []
    return [{"text": session.instruction.text, "at": session.instruction.at.isoformat()}]


@shared_repr
@attrs.define(kw_only=True, eq=False, repr=False)
class Flight:
    harness: str
    sid: str
    provider: str
    label: str
    attempt: int
    revision: int | None
    started_at: str
    stamp: str
    step: int = 0
    sent: bool = False
    cancel: threading.Event = attrs.field(factory=threading.Event)
    stop: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "sid": self.sid,
            "provider": self.provider,
            "attempt": self.attempt,
            "started_at": self.started_at,
            "steps": list(steps_for(self.label)),
            "step": self.step,
            "sent": self.sent,
        }


class Readings(ModelCalls):
    def __init__(
        self,
        *,
        intents: IntentSource,
        consent: ConsentStore,
        budget: BudgetStore,
        sidecars: Sidecars,
        env: Mapping[str, str],
        work: WorkSource,
        changed: Callable[[], None],
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        super().__init__(budget=budget, sidecars=sidecars, env=env, changed=changed, timeout_s=timeout_s)
        self.intents = intents
        self.consent = consent
        self.work = work

    def claim(self, harness: str, sid: str, route: Route, intent: Intent, stamp: str) -> Flight | None:
        """Register a flight for the session; ``None`` when one is already in flight."""
        assert route.provider is not None
        record = self.sidecars.get(harness, sid) or {}
        attempt = attempts_made(record) + 1
        flight = Flight(
            harness=harness,
            sid=sid,
            provider=route.provider,
            label=route.reader.label if route.reader else route.provider,
            attempt=attempt,
            revision=intent.revision,
            started_at=_now(),
            stamp=stamp,
        )
        return self.register(flight)

    def start(self, flight: Flight, session: BoardSession, route: Route, intent: Intent) -> None:
        """Mark the flight on disk (so a restart finds it) and run it in the background."""
        marker = {
            "attempt": flight.attempt,
            "provider": flight.provider,
            "revision": flight.revision,
            "started_at": flight.started_at,
            "reserved": flight.stamp,
        }
        self.launch(flight, "inflight", marker, lambda: self._run(flight, session, route, intent), "reading")

    def _step(self, flight: Flight, step: int) -> None:
        flight.step = step
        self.changed()

    def _run(self, flight: Flight, session: BoardSession, route: Route, intent: Intent) -> None:
        # Building the prompt and running the CLI are imported by the first reading, not at start.
        from .prompt import build_prompt, parse_reply
        from .runner import run_call

        outcome: dict[str, Any]
        reading: dict[str, Any] | None = None
        try:
            tool_output = self.consent.tool_output_allowed(flight.provider)
            account = build_account(session, self.work, tool_output=tool_output)
            prompt = build_prompt(intent.goal, intent.items, session.harness, account)
            if flight.cancel.is_set():
                outcome = (
                    {"ending": "interrupted", "detail": "the server stopped before anything was sent"}
                    if flight.stop
                    else {"ending": "cancelled", "detail": "cancelled before anything was sent; it spent nothing"}
                )
            else:
                self._step(flight, 1)

                def started() -> None:
                    flight.sent = True
                    self.changed()

                assert route.path is not None and route.reader is not None
                call: Call = run_call(
                    route.reader.command(route.path),
                    prompt.text,
                    env=self.env,
                    cancelled=flight.cancel,
                    timeout_s=self.timeout_s,
                    started=started,
                )
                if call.ending == "cancelled":
                    if flight.stop:
                        outcome = {
                            "ending": "interrupted",
                            "detail": "the server stopped mid-reading; its result could not be confirmed",
                        }
                    else:
                        outcome = {"ending": "cancelled", "detail": "cancelled while the reader ran; it still counts"}
                elif call.ending != "answered":
                    outcome = {"ending": "failed", "detail": f"{call.detail}; its result could not be confirmed"}
                else:
                    self._step(flight, 2)
                    verdicts = parse_reply(call.stdout, intent.items)
                    if verdicts is None:
                        outcome = {
                            "ending": "failed",
                            "detail": "the reply was not a reading of each line; its result could not be confirmed",
                        }
                    else:
                        conflict = later_directions(session, intent)
                        rows = [v.as_dict() for v in verdicts]
                        if conflict:
                            for row in rows:
                                if row["verdict"] == "departs":
                                    row["verdict"] = "withheld"
                        reading = {
                            "kind": "reading",
                            "at": _now(),
                            "revision": intent.revision,
                            "provider": flight.provider,
                            "goal_source": intent.goal_source,
                            "rows": rows,
                            "departed": any(r["verdict"] == "departs" for r in rows),
                            "withheld": bool(conflict),
                            "tool_output": prompt.tool_output,
                            "bytes": prompt.size,
                            "left_out": prompt.left_out,
                        }
                        outcome = {"ending": "stored"}
        except Exception as exc:  # a reading must never take the server down
            log.exception("a reading failed")
            outcome = {
                "ending": "failed",
                "detail": f"the reading could not be made ({type(exc).__name__}); its result could not be confirmed",
            }
        self._finish(flight, outcome, reading)

    def _finish(self, flight: Flight, outcome: dict[str, Any], reading: dict[str, Any] | None) -> None:
        attempt = self.attempt(flight, outcome, revision=flight.revision)
        recorded = False
        if reading is not None:
            recorded = self.intents.record(flight.harness, flight.sid, reading)
            reading["recorded"] = recorded

        def change(data: dict[str, Any]) -> None:
            data["count"] = attempts_made(data) + 1
            data.setdefault("attempts", []).append(attempt)
            if reading is not None:
                data.setdefault("readings", []).append(reading)
            data["inflight"] = None

        self.settle(flight, change)
