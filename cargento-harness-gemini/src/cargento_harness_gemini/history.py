"""What a chat's de-duplicated message list says: prompts, turns, tools, todos, tokens."""

from __future__ import annotations

import copy
import itertools
from datetime import datetime

import attrs
from cargento.models import Task, TurnEvidence
from cargento.rates import TokenTimeline
from cargento.sharedmethods import shared_methods
from cargento.turns import TurnClock

from cargento_harness_gemini.records import AgentCall, MessageFacts
from cargento_harness_gemini.transcript import ChatState

__all__ = ["TAIL", "History", "finished_agent", "history_for", "history_of"]

#: The fewest of the newest messages :func:`history_for` walks again on each refresh (it walks
#: between this many and twice this many: the checkpoint moves up by this many at a time); the
#: walk of those before them is kept. Gemini CLI re-appends a message under its id to attach
#: its tokens and tool calls, which it does to the newest few.
TAIL = 64

#: Tool call statuses that mean the call (an ``invoke_agent`` subagent run) is over.
FINISHED = frozenset({"success", "error", "cancelled"})


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class History:
    """The derived facts of one chat file."""

    first_prompt: str | None = None
    prompt: str | None = None
    prompt_at: datetime | None = None
    first_at: datetime | None = None
    last_at: datetime | None = None
    last_tool: str | None = None
    #: The model holds the turn: the newest message is a prompt or a tool reply.
    thinking: bool = False
    #: The newest model message asked for tool calls whose names are not recorded yet (Gemini
    #: CLI writes them once they finish).
    tools_pending: bool = False
    tasks: tuple[Task, ...] = ()
    topic: str | None = None
    model: str | None = None
    #: The output tokens of the model responses, each counted once, by timestamp (the last
    #: quarter hour of them: what the rate's window needs).
    tokens: TokenTimeline = attrs.field(factory=TokenTimeline)
    #: Some model response recorded its output tokens (zero is a measurement; none is not).
    tokens_measured: bool = False
    #: The sum of every model response's output tokens.
    tokens_total: int = 0
    agents: tuple[AgentCall, ...] = ()
    #: A subagent called ``complete_task``: it handed its result back.
    completed: bool = False
    turn: TurnEvidence = attrs.field(factory=TurnEvidence)


def history_of(state: ChatState) -> History:
    """Walk the de-duplicated messages in order and derive the reading's facts.

    A prompt starts a turn. A model message with visible text and no tool call is how Gemini
    CLI records the end of a turn; one that announces a tool call before the call is written
    looks the same until the call lands (see the package README). A subagent's turn ends only
    with its ``complete_task`` call.
    """
    walk = _Walk(_is_subagent(state))
    for m in state.messages.values():
        walk.feed(m)
    return walk.history()


def _is_subagent(state: ChatState) -> bool:
    return state.header is not None and state.header.kind == "subagent"


class _Walk:
    """:func:`history_of`'s walk, stoppable and resumable: the facts of the messages fed so far
    (:attr:`fed` of them, in order)."""

    def __init__(self, subagent: bool) -> None:
        self.subagent = subagent
        self.fed = 0
        self.clock = TurnClock()
        self.first_prompt: str | None = None
        self.prompt: str | None = None
        self.prompt_at: datetime | None = None
        self.first_at: datetime | None = None
        self.last_at: datetime | None = None
        self.last_tool: str | None = None
        self.topic: str | None = None
        self.model: str | None = None
        self.tasks: tuple[Task, ...] = ()
        self.tokens = TokenTimeline()
        self.tokens_measured = False
        self.tokens_total = 0
        self.agents: dict[str, AgentCall] = {}
        self.completed = False
        self.thinking = False
        self.pending = False

    def copy(self) -> _Walk:
        """A walk in the same state that goes on apart from this one."""
        twin = copy.copy(self)
        twin.clock = self.clock.copy()
        twin.tokens = self.tokens.copy()
        twin.agents = dict(self.agents)
        return twin

    def feed(self, m: MessageFacts) -> None:
        """The next message, in file order."""
        if self.fed < 0:
            raise RuntimeError("a walk whose history was taken is not fed again")
        self.fed += 1
        clock = self.clock
        if m.at is not None and (self.first_at is None or m.at < self.first_at):
            self.first_at = m.at
        if m.last_at is not None and (self.last_at is None or m.last_at > self.last_at):
            self.last_at = m.last_at
        self.thinking = self.pending = False
        if m.type == "user":
            if m.prompt:
                if clock.state == "open" and clock.last is not None:
                    clock.end(clock.last)
                clock.start(m.at)
                self.first_prompt = self.first_prompt or m.prompt
                self.prompt, self.prompt_at = m.prompt, m.at
                self.thinking = True
            elif m.tool_reply:
                _continue(clock, m.at)
                self.thinking = True
            else:
                clock.activity(m.at)
            return
        if m.type != "gemini":
            clock.activity(m.last_at)
            return
        _continue(clock, m.at)
        clock.activity(m.last_at)
        if m.tools:
            self.last_tool = m.tools[-1]
        if m.todos is not None:
            self.tasks = m.todos
        self.topic = m.topic or self.topic
        self.model = m.model or self.model
        if m.output_tokens is not None:
            self.tokens.add(m.at, m.output_tokens)
            self.tokens_measured = True
            self.tokens_total += m.output_tokens
        for call in m.agents:
            self.agents[call.agent_id or f"#{len(self.agents)}"] = call
        self.completed = self.completed or m.completes
        if m.completes:
            clock.end(m.last_at)
        elif not m.tools:
            if m.has_text and not self.subagent:
                clock.end(m.last_at)
            else:
                self.pending = True

    def history(self) -> History:
        """The facts of the messages fed so far: the walk's last use. Its token timeline goes to
        the History as it is (a refresh of a long chat made a copy of it), so nothing is fed to
        a walk after this; the resumable walk is the checkpoint, of which this is a copy."""
        self.fed = -1  # spent: feed() refuses it
        return History(
            first_prompt=self.first_prompt,
            prompt=self.prompt,
            prompt_at=self.prompt_at,
            first_at=self.first_at,
            last_at=self.last_at,
            last_tool=self.last_tool,
            thinking=self.thinking,
            tools_pending=self.pending,
            tasks=self.tasks,
            topic=self.topic,
            model=self.model,
            tokens=self.tokens,
            tokens_measured=self.tokens_measured,
            tokens_total=self.tokens_total,
            agents=tuple(self.agents.values()),
            completed=self.completed,
            turn=self.clock.evidence(),
        )


def _continue(clock: TurnClock, at: datetime | None) -> None:
    """Activity inside a turn; after a recorded end, more activity reopens one."""
    if clock.state == "open":
        clock.activity(at)
    else:
        clock.start(at)


def finished_agent(calls: tuple[AgentCall, ...], agent_id: str) -> AgentCall | None:
    """The ``invoke_agent`` call that ran *agent_id*, when the parent recorded one."""
    for call in calls:
        if call.agent_id == agent_id:
            return call
    return None


def history_for(state: ChatState) -> History:
    """:func:`history_of`, derived again only when the state took new lines, and then walking
    only the newest messages: the walk of all but the newest :data:`TAIL` to twice that is kept
    as a checkpoint while nothing before it changes (a re-appended message, a rewind or a resume's
    snapshot that reaches below it starts the walk again), so a refresh after one append costs
    the same in a chat of a hundred messages and of twenty thousand."""
    cached = state.derived
    if cached is not None and cached[0] == state.version and isinstance(cached[1], History):
        return cached[1]
    subagent = _is_subagent(state)
    checkpoint = state.checkpoint
    if not isinstance(checkpoint, _Walk) or checkpoint.subagent != subagent or state.changed_from < checkpoint.fed:
        checkpoint = _Walk(subagent)
    messages = state.messages.values()
    settled = len(state.messages) - TAIL
    if settled - checkpoint.fed >= TAIL:  # move the checkpoint up, past messages now settled
        for m in itertools.islice(messages, checkpoint.fed, settled):
            checkpoint.feed(m)
    walk = checkpoint.copy()
    for m in itertools.islice(messages, checkpoint.fed, None):
        walk.feed(m)
    state.checkpoint, state.changed_from = checkpoint, len(state.messages)
    history = walk.history()
    state.derived = (state.version, history)
    return history
