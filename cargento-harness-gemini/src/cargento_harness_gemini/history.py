"""What a chat's de-duplicated message list says: prompts, turns, tools, todos, tokens."""

from __future__ import annotations

from datetime import datetime

import attrs
from cargento.models import Task, TurnEvidence
from cargento.sharedrepr import shared_repr
from cargento.turns import TurnClock

from cargento_harness_gemini.records import AgentCall
from cargento_harness_gemini.transcript import ChatState

__all__ = ["History", "finished_agent", "history_for", "history_of"]

#: Tool call statuses that mean the call (an ``invoke_agent`` subagent run) is over.
FINISHED = frozenset({"success", "error", "cancelled"})


@shared_repr
@attrs.frozen(kw_only=True, repr=False)
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
    #: ``(timestamp, output tokens)`` of every model response, each counted once.
    tokens: tuple[tuple[datetime | None, int], ...] = ()
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
    subagent = state.header is not None and state.header.kind == "subagent"
    clock = TurnClock()
    first_prompt = prompt = None
    prompt_at = first_at = last_at = None
    last_tool = topic = model = None
    tasks: tuple[Task, ...] = ()
    tokens: list[tuple[datetime | None, int]] = []
    agents: dict[str, AgentCall] = {}
    completed = thinking = pending = False
    for m in state.messages.values():
        if m.at is not None and (first_at is None or m.at < first_at):
            first_at = m.at
        if m.last_at is not None and (last_at is None or m.last_at > last_at):
            last_at = m.last_at
        thinking = pending = False
        if m.type == "user":
            if m.prompt:
                if clock.state == "open" and clock.last is not None:
                    clock.end(clock.last)
                clock.start(m.at)
                first_prompt = first_prompt or m.prompt
                prompt, prompt_at = m.prompt, m.at
                thinking = True
            elif m.tool_reply:
                _continue(clock, m.at)
                thinking = True
            else:
                clock.activity(m.at)
            continue
        if m.type != "gemini":
            clock.activity(m.last_at)
            continue
        _continue(clock, m.at)
        clock.activity(m.last_at)
        if m.tools:
            last_tool = m.tools[-1]
        if m.todos is not None:
            tasks = m.todos
        topic = m.topic or topic
        model = m.model or model
        if m.output_tokens is not None:
            tokens.append((m.at, m.output_tokens))
        for call in m.agents:
            agents[call.agent_id or f"#{len(agents)}"] = call
        completed = completed or m.completes
        if m.completes:
            clock.end(m.last_at)
        elif not m.tools:
            if m.has_text and not subagent:
                clock.end(m.last_at)
            else:
                pending = True
    return History(
        first_prompt=first_prompt,
        prompt=prompt,
        prompt_at=prompt_at,
        first_at=first_at,
        last_at=last_at,
        last_tool=last_tool,
        thinking=thinking,
        tools_pending=pending,
        tasks=tasks,
        topic=topic,
        model=model,
        tokens=tuple(tokens),
        agents=tuple(agents.values()),
        completed=completed,
        turn=clock.evidence(),
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
    """:func:`history_of`, derived again only when the state took new lines."""
    cached = state.derived
    if cached is not None and cached[0] == state.version and isinstance(cached[1], History):
        return cached[1]
    history = history_of(state)
    state.derived = (state.version, history)
    return history
