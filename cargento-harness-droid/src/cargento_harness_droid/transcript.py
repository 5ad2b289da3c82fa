"""The running summary of one Droid session file, fed record by record as the file grows.

A :class:`Transcript` never holds the file's content: only the facts a reading needs (the
header, the first and newest prompt, the newest tool, where the turn stands). It is kept in the
plugin's cache beside a :class:`cargento.readers.JsonlFollower`, so a refresh applies only the
records appended since the previous one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from cargento.drift import DriftCounter
from cargento.labels import clip
from cargento.turns import TurnClock

from cargento_harness_droid.records import Header, header_of, message_of

__all__ = ["KNOWN_BLOCKS", "KNOWN_TYPES", "PROMPT_CHARS", "Transcript"]

#: Line types Droid writes (``todo_state`` is known and not read).
KNOWN_TYPES = frozenset({"session_start", "message", "todo_state"})
#: Message roles and content block types Droid writes.
KNOWN_ROLES = frozenset({"user", "assistant", "system"})
KNOWN_BLOCKS = frozenset({"text", "tool_use", "tool_result", "thinking", "redacted_thinking", "image"})

#: Prompt text is kept clipped to this many characters (a title or an instruction line).
PROMPT_CHARS = 400

#: Who holds the turn after the newest message.
Phase = Literal["none", "model", "tool", "reply"]


class Transcript:
    """Facts accumulated from one session file's records, in file order."""

    def __init__(self) -> None:
        self.header: Header | None = None
        #: True once the first record was seen (the header is line 1 or nowhere).
        self.started = False
        self.first_prompt: str | None = None
        self.prompt: str | None = None
        self.prompt_at: datetime | None = None
        self.first_at: datetime | None = None
        self.last_at: datetime | None = None
        self.last_tool: str | None = None
        self.open_tools: dict[str, str] = {}
        #: ``model`` after a prompt or a tool result (the model holds the turn), ``tool`` while a
        #: tool call has no result yet, ``reply`` after an assistant message with no tool call.
        self.phase: Phase = "none"
        self.clock = TurnClock()
        self.messages = 0
        #: Line types, roles and content blocks this build does not know (schema drift).
        self.drift = DriftCounter()

    def _count(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if not isinstance(kind, str):
            self.drift.record_type("line without a type")
            return
        if kind not in KNOWN_TYPES:
            self.drift.record_type(kind)
            return
        inner = record.get("message")
        if kind != "message" or not isinstance(inner, dict):
            return
        role = inner.get("role")
        if isinstance(role, str) and role not in KNOWN_ROLES:
            self.drift.record_type(f"message role {role}")
        content = inner.get("content")
        for block in content if isinstance(content, list) else ():
            block_kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(block_kind, str) and block_kind not in KNOWN_BLOCKS:
                self.drift.field(f"content block {block_kind}")

    def apply(self, record: dict[str, Any]) -> None:
        """Fold one parsed record into the summary."""
        first = not self.started
        self.started = True
        if first:
            self.header = header_of(record)
            if self.header is not None:
                return
        self._count(record)
        message = message_of(record)
        if message is None:
            return
        self.messages += 1
        at = message.at
        if at is not None:
            if self.first_at is None or at < self.first_at:
                self.first_at = at
            if self.last_at is None or at > self.last_at:
                self.last_at = at
        if message.role == "user":
            if message.tool_results:
                for ident in message.tool_results:
                    self.open_tools.pop(ident, None)
                self.phase = "tool" if self.open_tools else "model"
                self.clock.activity(at)
                return
            text = clip(message.text, PROMPT_CHARS)
            if not text:
                self.clock.activity(at)
                return
            if self.first_prompt is None:
                self.first_prompt = text
            self.prompt = text
            self.prompt_at = at
            self.open_tools.clear()
            self.phase = "model"
            self._start_turn(at)
            return
        # assistant
        self.clock.activity(at)
        for ident, name in message.tool_uses:
            self.last_tool = name
            if len(self.open_tools) < 64:
                self.open_tools[ident] = name
        if message.tool_uses:
            self.phase = "tool"
        elif message.thinking_only:
            self.phase = "model"
        else:
            self.phase = "tool" if self.open_tools else "reply"

    def _start_turn(self, at: datetime | None) -> None:
        # Droid records no turn end: the previous turn is taken to have ended at its last
        # record, which is what gives the estimate its sample of completed turns.
        if self.clock.state == "open" and self.clock.last is not None:
            self.clock.end(self.clock.last)
        self.clock.start(at)
