"""The ask lane's share of the server: its four routes, its ``questions`` key of ``/api/data``,
the notification on arrival, expiry, and the release of every question when serving ends.

Routes (every state-changing one behind the guard: loopback, Host, Origin and Sec-Fetch):

* ``POST /api/ask``: register a question (:func:`~cargento_web.ask.questions.parse_question`),
  carrying this run's capability in ``X-Cargento-Capability`` like the event forwarders
  (401 without it, 403 wrong); 201 with its id, 422 for a body that is not a question, 429
  past the cap on questions open at once.
* ``GET /api/ask/{id}``: how the question stands (capability required). It answers at once
  when the question is closed, else within :data:`HOLD_S` seconds: the asking server polls
  with short requests and never holds one long one.
* ``POST /api/ask/{id}/answer`` ``{"index": n}``: the page answers with an option's index
  (never text). An out-of-range index, a string, a closed question or a second answer
  changes nothing (422, 409).
* ``POST /api/ask/{id}/withdraw``: the asking server gave up (its tool call was cancelled);
  capability required.

Under ``--no-ask`` every route refuses (503) and the document carries no ``questions``. The
capability is the event hub's, published in the state file only with lifecycle events on, so
under ``--no-events`` the lane refuses registration too and says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
from cargento.statedir import CAPABILITY_HEADER
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from cargento_web.ask.questions import (
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MIN_TIMEOUT_S,
    OPTION_LIMIT,
    OPTIONS_MAX,
    OPTIONS_MIN,
    OUTSTANDING_LIMIT,
    QUESTION_LIMIT,
    Invalid,
    Question,
    Questions,
    Refused,
    parse_question,
)
from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.outbound import OutboundJSON

if TYPE_CHECKING:
    from cargento_web.app import Guard

__all__ = ["ANSWER_BODY_LIMIT", "ASK_BODY_LIMIT", "HOLD_S", "NO_ASK", "AskLane"]

log = logging.getLogger("cargento_web")

#: Largest registration body (the caps on text and options keep a real one far below this).
ASK_BODY_LIMIT = 16 * 1024
#: ``{"index": n}`` and nothing more.
ANSWER_BODY_LIMIT = 256
#: Longest a poll is held open while its question stays open.
HOLD_S = 1.0
NO_ASK = "the ask lane is off for this run (--no-ask)"
NO_CAPABILITY = (
    "the ask lane needs this run's capability, which the dashboard publishes only with lifecycle "
    "events on (this run has --no-events)"
)
_EVERY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def _refuse(status: int, message: str, **extra: Any) -> OutboundJSON:
    return OutboundJSON({"accepted": False, "error": message, **extra}, status_code=status)


class AskLane(Extension):
    """The ask lane of one dashboard run (``enabled=False`` is ``--no-ask``)."""

    name = "ask"

    def __init__(
        self,
        context: ExtensionContext,
        *,
        enabled: bool = True,
        clock: Callable[[], datetime] | None = None,
        limit: int = OUTSTANDING_LIMIT,
    ) -> None:
        self.context = context
        self.enabled = enabled
        self.clock = clock or (lambda: datetime.now(UTC))
        self.questions = Questions(limit=limit)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._events: dict[str, asyncio.Event] = {}
        self._sweep: asyncio.TimerHandle | None = None
        self._closed = False

    # -- the capability -------------------------------------------------------------------

    def _check_capability(self, request: Request) -> Response | None:
        hub = self.context.hub
        check: Callable[[str | None], bool] | None = getattr(hub, "check_capability", None)
        if check is None or getattr(hub, "capability", None) is None:
            return _refuse(503, NO_CAPABILITY)
        presented = request.headers.get(CAPABILITY_HEADER)
        if not presented:
            return _refuse(
                401, f"refused: the {CAPABILITY_HEADER} header is required (read it from the dashboard's state file)"
            )
        if not check(presented):
            return _refuse(403, "refused: wrong capability (it is generated anew by every run of the dashboard)")
        return None

    # -- closing questions ----------------------------------------------------------------

    def _closed_now(self, closed: Sequence[Question]) -> None:
        """Wake the polls of *closed* questions and move the document's revision (on the loop)."""
        if not closed:
            return
        for q in closed:
            event = self._events.pop(q.id, None)
            if event is not None:
                event.set()
        self.context.changed()

    def _schedule_sweep(self) -> None:
        loop = self._loop
        due = self.questions.next_expiry()
        if loop is None or due is None or self._closed:
            return
        if self._sweep is not None:
            self._sweep.cancel()
        delay = max(0.0, (due - self.clock()).total_seconds()) + 0.02
        self._sweep = loop.call_later(delay, self._on_sweep)

    def _on_sweep(self) -> None:
        self._sweep = None
        self._closed_now(self.questions.expire(self.clock()))
        self._schedule_sweep()

    # -- routes ---------------------------------------------------------------------------

    def routes(self, guard: Guard) -> Sequence[BaseRoute]:
        async def register(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if not self.enabled:
                return _refuse(503, NO_ASK)
            refusal = self._check_capability(request)
            if refusal is not None:
                return refusal
            raw = await guard.read_body(request, ASK_BODY_LIMIT)
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return _refuse(400, "refused: the body is not JSON")
            if not isinstance(body, dict):
                return _refuse(400, "refused: the body must be one JSON object")
            try:
                asked = parse_question(body)
            except Invalid as exc:
                return _refuse(422, f"refused: {exc}")
            if self._closed:
                return _refuse(503, "refused: the dashboard is stopping")
            self._loop = asyncio.get_running_loop()
            now = self.clock()
            try:
                question = self.questions.register(asked, now)
            except Refused as exc:
                return _refuse(429, f"refused: {exc}", reason="cap")
            self._schedule_sweep()
            self.context.changed()
            self._notify(question)
            return OutboundJSON(
                {"accepted": True, **question.outcome(), "poll_s": HOLD_S},
                status_code=201,
                headers={"Cache-Control": "no-store"},
            )

        async def poll(request: Request) -> Response:
            if not self.enabled:
                return _refuse(503, NO_ASK)
            refusal = self._check_capability(request)
            if refusal is not None:
                return refusal
            question_id = request.path_params["id"]
            question = self.questions.get(question_id, self.clock())
            if question is None:
                return OutboundJSON({"id": question_id, "status": "unknown"}, status_code=404)
            if question.status == "open":
                event = self._events.setdefault(question_id, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), HOLD_S)
                question = self.questions.get(question_id, self.clock()) or question
            if question.status != "open":
                # Closed lazily (expired on this read): nobody waits on its event any more.
                self._events.pop(question_id, None)
            return OutboundJSON(question.outcome(), headers={"Cache-Control": "no-store"})

        async def answer(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if not self.enabled:
                return _refuse(503, NO_ASK)
            raw = await guard.read_body(request, ANSWER_BODY_LIMIT)
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                return _refuse(400, "refused: the body is not JSON")
            if not isinstance(body, dict) or set(body) != {"index"}:
                return _refuse(422, 'refused: the body is {"index": n}; free-form replies are not accepted')
            question_id = request.path_params["id"]
            try:
                question = self.questions.answer(question_id, body["index"], self.clock())
            except LookupError as exc:
                if str(exc) == "unknown":
                    return _refuse(404, "refused: no such question")
                return _refuse(409, "refused: that question is already closed")
            except Invalid as exc:
                return _refuse(422, f"refused: {exc}")
            self._closed_now([question])
            return OutboundJSON({"accepted": True, "id": question.id, "index": question.index})

        async def withdraw(request: Request) -> Response:
            refusal = guard.check_state_change(request)
            if refusal is not None:
                return refusal
            if not self.enabled:
                return _refuse(503, NO_ASK)
            refusal = self._check_capability(request)
            if refusal is not None:
                return refusal
            await guard.read_body(request, ANSWER_BODY_LIMIT)
            question = self.questions.decline(request.path_params["id"], "the asking session withdrew it", self.clock())
            if question is None:
                return _refuse(409, "refused: that question is not open")
            self._closed_now([question])
            return OutboundJSON({"accepted": True, **question.outcome()})

        return [
            Route("/api/ask", register, methods=_EVERY_METHOD),
            Route("/api/ask/{id}", poll, methods=["GET", "HEAD"]),
            Route("/api/ask/{id}/answer", answer, methods=_EVERY_METHOD),
            Route("/api/ask/{id}/withdraw", withdraw, methods=_EVERY_METHOD),
        ]

    # -- notification ---------------------------------------------------------------------

    def _notify(self, question: Question) -> None:
        """A question notifies on arrival, with its own 15-second floor (the hub's alerts)."""
        hub = self.context.hub
        try:
            if question.harness is not None and question.session_id is not None:
                raise_question: Any = getattr(hub, "raise_question", None)
                if raise_question is not None:
                    raise_question(question.harness, question.session_id, question.text)
                return
            alerts: Any = getattr(hub, "alerts", None)
            if alerts is not None:
                alerts.question("", "", "A session asks a question", question.text[:180], self.clock())
        except Exception:  # a notification must never refuse the question
            log.exception("the ask lane failed to raise a question's notification")

    # -- the extension --------------------------------------------------------------------

    def document(self) -> Mapping[str, Any]:
        if not self.enabled:
            return {}
        return {"questions": [q.document() for q in self.questions.outstanding(self.clock())]}

    def page_config(self) -> Mapping[str, Any]:
        hub = self.context.hub
        capability = getattr(hub, "capability", None) is not None
        reason = None if self.enabled and capability else (NO_ASK if not self.enabled else NO_CAPABILITY)
        return {
            "on": self.enabled and capability,
            "reason": reason,
            "limits": {
                "question": QUESTION_LIMIT,
                "option": OPTION_LIMIT,
                "options": [OPTIONS_MIN, OPTIONS_MAX],
                "outstanding": self.questions.limit,
                "timeout_s": [MIN_TIMEOUT_S, DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S],
            },
        }

    def release_all(self, reason: str) -> list[Question]:
        """Decline every open question and wake its poll (serving ends)."""
        self._closed = True
        released = self.questions.decline_all(reason, self.clock())
        loop = self._loop
        if released and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._closed_now, released)
        if self._sweep is not None and loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._sweep.cancel)
        return released

    def close(self) -> None:
        self.release_all("the dashboard stopped")
