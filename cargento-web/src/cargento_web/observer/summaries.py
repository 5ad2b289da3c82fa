"""Goal summaries (``--observer-model`` only): one line proposed from a session's own prompts.

A summary sends what the board published of the session in your words (its title as its harness
published it, and your latest prompt with its time; never the agent's own statement of intent,
its tool output or its work), at most :data:`~.prompt.PROMPT_LIMIT` redacted bytes, to the
provider whose plugin declares it offers summaries (:attr:`cargento.models.ReadingProvider.summaries`),
with the same command line, scratch folder, standard input and time limit as a reading
(:mod:`.runner`). The reply is one JSON object ``{"summary": "<one line>"}`` of at most
:data:`SUMMARY_CHARS` characters; anything else is a failed attempt whose result could not be
confirmed, and nothing retries it.

A summary is a proposal: it is kept in the session's sidecar (``summaries``, its attempts in
``summary_attempts``) and shown beside the goal field, and it becomes a goal only when you put it
in the field and save it (then it is your typed words). It has its own permission
(:meth:`.consent.ConsentStore.allow_summaries`), which reading permission never grants nor
needs, and it draws on the same rolling budget of twelve model requests a day as the readings,
because it spends the same capacity. One model call is in flight per session: a summary waits for
a reading of that session and a reading for a summary.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import attrs
import orjson
from cargento.board import BoardSession
from cargento.redact import redact
from cargento.sharedmethods import shared_methods

from .calls import ModelCalls
from .limits import PROMPT_LIMIT
from .providers import Route
from .service import Flight

if TYPE_CHECKING:
    from .runner import Call

__all__ = [
    "KEEP_SUMMARIES",
    "SUMMARY_CHARS",
    "Summaries",
    "SummaryPrompt",
    "build_summary_prompt",
    "parse_summary",
    "summary_attempts_made",
]

#: The longest summary kept: a goal is one line of at most 240 characters.
SUMMARY_CHARS = 240
KEEP_SUMMARIES = 4
KEEP_SUMMARY_ATTEMPTS = 12
#: The longest single prompt sent; the whole prompt stays within PROMPT_LIMIT whatever this is.
_PROMPT_CHARS = 12_000

log = logging.getLogger("cargento_web")

_HEAD = """You are proposing a goal for a coding-agent session from its operator's own prompts.
Do not run commands, read files or use any tool: read only the prompts below.
State, in one line of at most 240 characters, the goal the operator is pursuing in this session.
Answer with exactly one JSON object and nothing else:
{"summary": "<one line>"}
"""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class SummaryPrompt:
    text: str
    #: Characters of the prompt left out to keep within PROMPT_LIMIT bytes.
    left_out: int

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


def prompts_of(session: BoardSession) -> list[str]:
    """What a summary reads of *session*: its title and your latest prompt (not the agent's own
    statement of intent), redacted; empty when it published neither."""
    found: list[str] = []
    if session.title:
        found.append(f"title (as {session.harness_label} published it): {redact(_one_line(session.title))}")
    instruction = session.instruction
    if instruction is not None and instruction.source != "agent" and instruction.text.strip():
        at = instruction.at.isoformat() if instruction.at else "time unknown"
        found.append(f"your latest prompt ({at}): {redact(instruction.text.strip())}")
    return found


def build_summary_prompt(session: BoardSession) -> SummaryPrompt | None:
    """The prompt a summary sends, or ``None`` when the session published no prompt or title."""
    entries = prompts_of(session)
    if not entries:
        return None
    head = _HEAD + f"\nPROMPTS (from a {session.harness_label} session):\n"
    room = PROMPT_LIMIT - len(head.encode("utf-8")) - 128
    body = "\n".join(entries) + "\n"
    left_out = 0
    raw = body.encode("utf-8")
    if len(raw) > room:
        kept = raw[:room].decode("utf-8", errors="ignore")
        left_out = len(body) - len(kept)
        body = (
            kept
            + f"\nnote: the rest of the prompt ({left_out} characters) was left out to keep within {PROMPT_LIMIT} bytes\n"
        )
    return SummaryPrompt(text=head + body, left_out=left_out)


def parse_summary(reply: str) -> str | None:
    """The one-line summary in *reply*, redacted, or ``None`` when the reply is not one."""
    start, end = reply.find("{"), reply.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        data = orjson.loads(reply[start : end + 1])
    except orjson.JSONDecodeError:
        return None
    value = data.get("summary") if isinstance(data, dict) else None
    if not isinstance(value, str):
        return None
    line = _one_line(value)
    if not line or len(line) > SUMMARY_CHARS:
        return None
    return redact(line)


def summary_attempts_made(record: Mapping[str, Any]) -> int:
    kept = len(record.get("summary_attempts") or [])
    count = record.get("summary_count")
    return max(kept, count) if isinstance(count, int) and not isinstance(count, bool) else kept


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Summaries(ModelCalls):
    """Summary calls in the background, one per session, each recorded in its sidecar."""

    def claim(self, harness: str, sid: str, route: Route, stamp: str) -> Flight | None:
        """Register a summary flight; ``None`` when one is already in flight for the session."""
        assert route.provider is not None
        record = self.sidecars.get(harness, sid) or {}
        flight = Flight(
            harness=harness,
            sid=sid,
            provider=route.provider,
            label=route.reader.label if route.reader else route.provider,
            attempt=summary_attempts_made(record) + 1,
            revision=None,
            started_at=_now(),
            stamp=stamp,
        )
        return self.register(flight)

    def start(self, flight: Flight, session: BoardSession, route: Route) -> None:
        marker = {
            "attempt": flight.attempt,
            "provider": flight.provider,
            "started_at": flight.started_at,
            "reserved": flight.stamp,
        }
        self.launch(flight, "summary_inflight", marker, lambda: self._run(flight, session, route), "summary")

    def _run(self, flight: Flight, session: BoardSession, route: Route) -> None:
        # The CLI runner is imported by the first summary, not at start.
        from .runner import run_call

        summary: dict[str, Any] | None = None
        outcome: dict[str, Any]
        try:
            prompt = build_summary_prompt(session)
            if prompt is None:
                outcome = {"ending": "failed", "detail": "the session published no prompt to summarise"}
            elif flight.cancel.is_set():
                outcome = (
                    {"ending": "interrupted", "detail": "the server stopped before anything was sent"}
                    if flight.stop
                    else {"ending": "cancelled", "detail": "cancelled before anything was sent; it spent nothing"}
                )
            else:
                flight.step = 1
                self.changed()

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
                    outcome = (
                        {
                            "ending": "interrupted",
                            "detail": "the server stopped mid-summary; its result could not be confirmed",
                        }
                        if flight.stop
                        else {"ending": "cancelled", "detail": "cancelled while the provider ran; it still counts"}
                    )
                elif call.ending != "answered":
                    outcome = {"ending": "failed", "detail": f"{call.detail}; its result could not be confirmed"}
                else:
                    flight.step = 2
                    self.changed()
                    text = parse_summary(call.stdout)
                    if text is None:
                        outcome = {
                            "ending": "failed",
                            "detail": f"the reply was not one line of at most {SUMMARY_CHARS} characters; its result could not be confirmed",
                        }
                    else:
                        summary = {
                            "at": _now(),
                            "provider": flight.provider,
                            "label": flight.label,
                            "text": text,
                            "bytes": prompt.size,
                            "left_out": prompt.left_out,
                        }
                        outcome = {"ending": "stored"}
        except Exception as exc:  # a summary must never take the server down
            log.exception("a goal summary failed")
            outcome = {
                "ending": "failed",
                "detail": f"the summary could not be made ({type(exc).__name__}); its result could not be confirmed",
            }
        self._finish(flight, outcome, summary)

    def _finish(self, flight: Flight, outcome: dict[str, Any], summary: dict[str, Any] | None) -> None:
        attempt = self.attempt(flight, outcome)

        def change(data: dict[str, Any]) -> None:
            data["summary_count"] = summary_attempts_made(data) + 1
            data.setdefault("summary_attempts", []).append(attempt)
            if summary is not None:
                data.setdefault("summaries", []).append(summary)
            data["summary_inflight"] = None

        self.settle(flight, change)
