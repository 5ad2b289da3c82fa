"""What a Pi session's active branch says, gathered entry by entry from the root.

A reading asks the branch for its turn clock, its prompts, its newest message, tool and model
and its output tokens. :class:`BranchFacts` is fed the branch's entries in order, root first,
and keeps those answers as it goes, so a branch that only grew (an entry appended under the
leaf: nearly every refresh) is fed that one entry instead of being walked again; the tree
(:mod:`cargento_harness_pi.tree`) starts a new one from the root when the branch changed any
other way (a rewind, a ``/tree`` jump, an entry written again under its id).
"""

from __future__ import annotations

import re

from cargento.rates import TokenTimeline
from cargento.turns import TurnClock

from cargento_harness_pi.entries import Entry

__all__ = ["ENDED", "MESSAGES", "BranchFacts", "is_continuation"]

#: ``stopReason`` values that end a turn.
ENDED = frozenset({"stop", "aborted", "error"})
#: Message roles that hand the turn between the human, the model and a tool.
MESSAGES = frozenset({"user", "assistant", "toolResult"})
_CONTINUATION = re.compile(
    r"^(?:ok(?:ay)?|y(?:es|ep|eah)?|sure|proceed|continue|go(?: on| ahead)?|keep going|carry on|do it|"
    r"next|lgtm|sounds good|please do|please continue|go for it|resume|again|retry|try again)[.! ]*$",
    re.IGNORECASE,
)


def is_continuation(text: str) -> bool:
    """Whether a prompt only tells the agent to go on ("ok", "continue", "try again"...)."""
    return _CONTINUATION.match(text.strip()) is not None


class BranchFacts:
    """The facts of the entries fed so far (a branch, root first)."""

    __slots__ = (
        "clock",
        "count",
        "first_prompt",
        "last_message",
        "last_tool",
        "newest_carrier",
        "newest_plain_prompt",
        "newest_prompt",
        "newest_provider_carrier",
        "output_events",
        "output_total",
        "tokens",
    )

    def __init__(self) -> None:
        self.clock = TurnClock()
        #: Entries fed.
        self.count = 0
        #: The first and the newest user message with text, and the newest of them that is
        #: more than a continuation (the instruction a continuation carries on).
        self.first_prompt: Entry | None = None
        self.newest_prompt: Entry | None = None
        self.newest_plain_prompt: Entry | None = None
        #: The newest user, assistant or tool-result message.
        self.last_message: Entry | None = None
        #: The last tool the newest assistant message that called one called.
        self.last_tool: str | None = None
        #: The newest assistant message or ``model_change`` that names a model or a provider,
        #: and the newest of those that names a provider.
        self.newest_carrier: Entry | None = None
        self.newest_provider_carrier: Entry | None = None
        #: Entries that carry an output-token count, their sum, and the counts by time.
        self.output_events = 0
        self.output_total = 0
        self.tokens = TokenTimeline()

    def feed(self, entry: Entry) -> None:
        """The next entry of the branch."""
        self.count += 1
        kind = entry.kind
        if kind == "user":
            self.clock.start(entry.at)
            if entry.text:
                if self.first_prompt is None:
                    self.first_prompt = entry
                self.newest_prompt = entry
                if not is_continuation(entry.text):
                    self.newest_plain_prompt = entry
        elif kind == "assistant" and entry.stop_reason in ENDED:
            self.clock.end(entry.at)
        else:
            self.clock.activity(entry.at)
        if kind in MESSAGES:
            self.last_message = entry
        if kind == "assistant" and entry.tools:
            self.last_tool = entry.tools[-1]
        if kind in ("assistant", "model_change") and (entry.provider or entry.model):
            self.newest_carrier = entry
            if entry.provider:
                self.newest_provider_carrier = entry
        if entry.output_tokens is not None:
            self.output_events += 1
            self.output_total += entry.output_tokens
            self.tokens.add(entry.at, entry.output_tokens)
