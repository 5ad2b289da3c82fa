"""The running summary of one rollout, built backward once and then kept current forward.

A cold read walks the rollout from its end towards its start (:func:`walk_summary`) and stops
as soon as every reading is settled: prompts and plans can sit hundreds of megabytes before
the end, behind encrypted reasoning, so no tail read would find them. After that the summary
is updated from appended records only (:meth:`Summary.apply`). Both directions implement the
same definitions, which the tests check by comparing a cold read of a whole file with a cold
read of its first part followed by the appended rest:

* prompt: the newest human prompt after the newest compaction boundary; ``substantive`` the
  newest one that is not a bare continuation such as "proceed";
* statement: the first agent message after the newest turn start;
* plan: the newest plan, compaction or not; model: the newest ``turn_context`` model;
* tool: the newest tool call, open until an output, a prompt or an agent message follows;
* turn: the newest boundary, the generation clock of an open turn, and the durations of the
  newest completed turns;
* usage: the newest cumulative output count and the per-record increments near the end; in a
  subagent thread only records after the thread's own first turn start count (a child
  rollout can replay its parent's history first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timedelta

import attrs
from cargento.drift import DriftCounter
from cargento.models import RateLimit, SpacedockBoot, TurnEvidence
from cargento.rates import TokenTimeline
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr
from cargento.turns import QUIET_GAP_S, TurnClock

from cargento_harness_codex.meta import RolloutMeta
from cargento_harness_codex.plan import PlanStep
from cargento_harness_codex.records import Fact

__all__ = ["KEEP_S", "MAX_TURNS", "Said", "Summary", "is_continuation", "walk_summary"]

#: How far before the reading time the cold walk looks for usage increments (the ten-minute
#: window and three minutes of skew); an older one never reaches the window.
KEEP_S = 600.0 + 180.0
#: Completed turn durations kept as the sample for the estimate.
MAX_TURNS = 20
#: Boot calls remembered while their output is awaited.
MAX_BOOT_CALLS = 16
_CONTINUATION = re.compile(
    r"^(?:ok(?:ay)?|y(?:es|ep|eah)?|sure|proceed|continue|go(?: on| ahead)?|keep going|carry on|do it|"
    r"next|lgtm|sounds good|please do|please continue|go for it|resume|again|retry|try again)[.! ]*$",
    re.IGNORECASE,
)


def is_continuation(text: str) -> bool:
    """True for a prompt that only continues (``proceed``, ``go on``...), not a new request."""
    return bool(_CONTINUATION.match(text.strip()))


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Said:
    """A piece of text and when it was written."""

    text: str
    at: datetime | None


def _horizon(now: datetime) -> datetime:
    return now - timedelta(seconds=KEEP_S)


@shared_repr
@attrs.define(repr=False, eq=False)
class Summary:
    """Everything read from one rollout so far (mutable; kept in the plugin cache)."""

    meta: RolloutMeta
    last_at: datetime | None = None
    prompt: Said | None = None
    substantive: Said | None = None
    statement: Said | None = None
    awaiting_statement: bool = False
    plan: tuple[PlanStep, ...] | None = None
    model: str | None = None
    last_tool: str | None = None
    last_tool_raw: str | None = None
    tool_open: bool = False
    clock: TurnClock = attrs.Factory(TurnClock)
    completed: list[float] = attrs.Factory(list)
    counting: bool = True
    cumulative: int = 0
    total: int | None = None
    #: The output-token increments of the thread's records, by timestamp (a quarter hour of them).
    increments: TokenTimeline = attrs.Factory(TokenTimeline)
    limits: tuple[RateLimit, ...] = ()
    #: The newest ``spacedock status --boot`` result, and the boot calls still awaiting one.
    spacedock: SpacedockBoot | None = None
    boot_calls: list[str] = attrs.Factory(list)
    #: Record types this build does not know among the records read, counted (schema drift):
    #: the cold walk's share (it stops once every reading is settled) and everything appended.
    drift: DriftCounter = attrs.Factory(DriftCounter)

    @classmethod
    def empty(cls, meta: RolloutMeta) -> Summary:
        return cls(meta=meta, counting=not meta.is_subagent)

    # -- forward --------------------------------------------------------------------------

    def apply(self, fact: Fact) -> None:
        """Fold one appended record into the summary."""
        if fact.at is not None:
            self.last_at = fact.at
        if fact.unknown is not None:
            self.drift.record_type(fact.unknown)
        kind = fact.kind
        if kind == "prompt" and fact.text:
            said = Said(fact.text, fact.at)
            self.prompt = said
            if not is_continuation(fact.text):
                self.substantive = said
            self.tool_open = False
        elif kind == "agent" and fact.text:
            if self.awaiting_statement:
                self.statement = Said(fact.text, fact.at)
                self.awaiting_statement = False
            self.tool_open = False
        elif kind == "turn_start":
            self.clock.start(fact.at)
            self.statement = None
            self.awaiting_statement = True
            if not self.counting:
                self.counting = True
                self.cumulative = 0
        elif kind == "turn_end":
            duration = fact.duration_s
            if duration is None and self.clock.state == "open" and self.clock.anchor is not None and fact.at:
                duration = _span(self.clock, fact.at)
            if duration is not None:
                self.completed.append(duration)
                del self.completed[:-MAX_TURNS]
            self.clock.end(fact.at)
        elif kind == "plan":
            self.plan = fact.plan
        elif kind == "model":
            self.model = fact.text
        elif kind == "tool_call":
            self.last_tool, self.last_tool_raw = fact.text, fact.raw
            self.tool_open = True
            if fact.boot_call and fact.call_id:
                self.boot_calls = [*self.boot_calls[-(MAX_BOOT_CALLS - 1) :], fact.call_id]
        elif kind == "tool_output":
            self.tool_open = False
            if fact.boot is not None and fact.call_id in self.boot_calls:
                self.spacedock = fact.boot
        elif kind == "compaction":
            self.prompt = None
            self.substantive = None
        if kind == "usage":
            self._usage(fact)
        if kind not in ("turn_start", "turn_end"):
            self.clock.activity(fact.at)

    def _usage(self, fact: Fact) -> None:
        if fact.limits:
            self.limits = fact.limits
        if not self.counting or fact.cumulative is None or not self._own(fact):
            return
        value = fact.cumulative
        delta = value - self.cumulative if value >= self.cumulative else value
        self.cumulative = value
        self.total = value
        if delta > 0:
            self.increments.add(fact.at, delta)

    def _own(self, fact: Fact) -> bool:
        return fact.thread_id is None or not self.meta.is_subagent or fact.thread_id == self.meta.id

    # -- readings -------------------------------------------------------------------------

    def turn(self) -> TurnEvidence:
        evidence = self.clock.evidence()
        return attrs.evolve(evidence, completed_s=tuple(self.completed[-MAX_TURNS:]))

    def window_tokens(self, now: datetime) -> int:
        """The output tokens of the increments in the ten-minute window ending at *now*."""
        return self.increments.in_window(now)


def _span(clock: TurnClock, at: datetime) -> float:
    """The duration a turn ending at *at* gets from the clock (quiet gaps banked)."""
    assert clock.anchor is not None and clock.last is not None
    last = clock.last
    banked = clock.banked
    anchor = clock.anchor
    if at >= last and (at - last).total_seconds() > QUIET_GAP_S:
        banked += (last - anchor).total_seconds()
        anchor = at
    return banked + max(0.0, (at - anchor).total_seconds())


@shared_repr
@attrs.define(repr=False, eq=False)
class _Pending:
    """A turn end seen walking backward, waiting for the boundary before it."""

    at: datetime | None
    duration_s: float | None
    #: Activity timestamps between this end's turn start and the end, newest first.
    activity: list[datetime]


def walk_summary(meta: RolloutMeta, facts: Iterable[Fact], now: datetime) -> Summary:
    """Build a summary from a rollout's facts given newest first, stopping once all is settled."""
    out = Summary.empty(meta)
    horizon = _horizon(now)
    prompt_done = False
    statement_done = False
    tool_done = False
    open_decided = False
    earliest_agent: Said | None = None
    first_boundary: Fact | None = None
    #: Activity timestamps newer than the newest boundary, newest first and thinned.
    after_boundary: list[datetime] = []
    pending: _Pending | None = None
    durations: list[float] = []
    turns_done = False
    usage: list[tuple[int, Fact]] = []
    usage_done = False
    limits_done = False
    starts: list[int] = []
    #: Boot outputs seen walking backward, by call id, waiting for the call that ran them.
    boots: dict[str, SpacedockBoot] = {}
    index = 0
    for index, fact in enumerate(facts):
        kind = fact.kind
        if fact.unknown is not None:
            out.drift.record_type(fact.unknown)
        if out.spacedock is None:
            if kind == "tool_output" and fact.boot is not None and fact.call_id and len(boots) < MAX_BOOT_CALLS:
                boots.setdefault(fact.call_id, fact.boot)
            elif kind == "tool_call" and fact.boot_call and fact.call_id in boots:
                out.spacedock = boots[fact.call_id]
        if out.last_at is None and fact.at is not None:
            out.last_at = fact.at
        if first_boundary is None and kind not in ("turn_start", "turn_end") and fact.at is not None:
            _thin_push(after_boundary, fact.at)
        if pending is not None and kind not in ("turn_start", "turn_end") and fact.at is not None:
            _thin_push(pending.activity, fact.at)
        if kind == "prompt" and fact.text and not prompt_done:
            said = Said(fact.text, fact.at)
            if out.prompt is None:
                out.prompt = said
            if not is_continuation(fact.text):
                out.substantive = said
                prompt_done = True
        elif kind == "compaction":
            prompt_done = True
        elif kind == "agent" and fact.text and not statement_done:
            earliest_agent = Said(fact.text, fact.at)
        elif kind == "plan" and out.plan is None:
            out.plan = fact.plan
        elif kind == "model" and out.model is None:
            out.model = fact.text
        if not open_decided and (kind in ("tool_call", "tool_output") or (kind in ("prompt", "agent") and fact.text)):
            out.tool_open = kind == "tool_call"
            open_decided = True
        if kind == "tool_call" and out.last_tool is None:
            out.last_tool, out.last_tool_raw = fact.text, fact.raw
        tool_done = open_decided and out.last_tool is not None
        if kind == "turn_start":
            starts.append(index)
            if not statement_done:
                out.statement = earliest_agent
                statement_done = True
            if first_boundary is None:
                first_boundary = fact
            if pending is not None:
                _close(pending, fact, durations)
                pending = None
                turns_done = len(durations) >= MAX_TURNS
        elif kind == "turn_end":
            if first_boundary is None:
                first_boundary = fact
            if pending is not None:
                if pending.duration_s is not None:
                    durations.append(pending.duration_s)
                turns_done = len(durations) >= MAX_TURNS
            pending = _Pending(fact.at, fact.duration_s, []) if not turns_done else None
        if kind == "usage":
            if fact.limits and not limits_done:
                out.limits = fact.limits
                limits_done = True
            if fact.cumulative is not None and out._own(fact) and not usage_done:
                usage.append((index, fact))
                usage_done = not meta.is_subagent and fact.at is not None and fact.at < horizon
        if (
            prompt_done
            and statement_done
            and tool_done
            and out.plan is not None
            and out.model is not None
            and turns_done
            and usage_done
            and limits_done
        ):
            break
    else:
        # Reached the start of the file: a pending end has no turn start before it.
        if pending is not None and pending.duration_s is not None:
            durations.append(pending.duration_s)
        if meta.is_subagent:
            first_start = max(starts) if starts else -1
            usage = [(i, f) for i, f in usage if i < first_start]
            out.counting = bool(starts)
    out.completed = list(reversed(durations[:MAX_TURNS]))
    _settle_turn(out, first_boundary, after_boundary)
    _settle_usage(out, usage)
    out.awaiting_statement = statement_done and out.statement is None
    return out


def _thin_push(stamps: list[datetime], at: datetime) -> None:
    """Append an older timestamp, dropping middle points that cannot hide a quiet gap."""
    if len(stamps) >= 2 and (stamps[-2] - at).total_seconds() <= QUIET_GAP_S and stamps[-1] <= stamps[-2]:
        stamps[-1] = at
    else:
        stamps.append(at)


def _close(pending: _Pending, start: Fact, durations: list[float]) -> None:
    if pending.duration_s is not None:
        durations.append(pending.duration_s)
        return
    if start.at is None or pending.at is None:
        return
    clock = TurnClock()
    clock.start(start.at)
    for at in reversed(pending.activity):
        clock.activity(at)
    durations.append(_span(clock, pending.at))


def _settle_turn(out: Summary, boundary: Fact | None, after: list[datetime]) -> None:
    if boundary is None:
        return
    if boundary.kind == "turn_end":
        out.clock.end(boundary.at)
        return
    out.clock.start(boundary.at)
    for at in reversed(after):
        out.clock.activity(at)


def _settle_usage(out: Summary, usage: list[tuple[int, Fact]]) -> None:
    if not out.counting or not usage:
        return
    values = [f.cumulative for _, f in usage if f.cumulative is not None]
    out.total = values[0]
    out.cumulative = values[0]
    increments: list[tuple[datetime | None, int]] = []
    for position, (_, fact) in enumerate(usage):
        value = values[position]
        older = values[position + 1] if position + 1 < len(values) else None
        if older is None:
            # The oldest record seen: its predecessor is the thread's zero only when the walk
            # reached the counting start; otherwise its increment is outside the window anyway.
            older = 0
        delta = value - older if value >= older else value
        if delta > 0:
            increments.append((fact.at, delta))
    for at, delta in reversed(increments):
        out.increments.add(at, delta)
