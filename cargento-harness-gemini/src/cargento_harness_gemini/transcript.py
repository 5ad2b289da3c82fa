"""The running state of one Gemini CLI chat file, fed record by record as the file grows.

Gemini CLI re-appends a message under the same ``id`` whenever it attaches tokens or tool calls,
replaces the whole list with a ``$set.messages`` snapshot when a session is resumed, and drops a
message and everything after it on ``$rewindTo``. The state keeps one
:class:`~cargento_harness_gemini.records.MessageFacts` per message id in file order, so each
API response is counted once (the last copy wins) and a rewind forgets what it removed. It never
holds message content beyond a clipped prompt.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cargento.timestamps import parse_ts

from cargento_harness_gemini.records import Header, MessageFacts, directories_of, header_of, message_facts

__all__ = ["ChatState"]


class ChatState:
    """Everything read so far from one chat file."""

    def __init__(self) -> None:
        self.header: Header | None = None
        #: True once line 1 was seen (the header is line 1 or nowhere).
        self.started = False
        self.messages: dict[str, MessageFacts] = {}
        self.directories: tuple[str, ...] = ()
        self.summary: str | None = None
        self.updated_at: datetime | None = None
        #: The model the newest model message named anywhere in the file, in file order,
        #: including messages a later ``$set.messages`` snapshot or ``$rewindTo`` removed: the
        #: model is a fact of the session, not only of the thread still on screen.
        self.model: str | None = None
        #: Bumped by every applied line, so derived facts can be cached against it.
        self.version = 0
        #: ``(version, derived facts)`` kept by :func:`~cargento_harness_gemini.history.history_for`.
        self.derived: tuple[int, Any] | None = None

    def apply(self, record: dict[str, Any]) -> None:
        """Fold one parsed line into the state."""
        self.version += 1
        if not self.started:
            self.started = True
            header = header_of(record)
            if header is not None:
                self.header = header
                self.directories = header.directories
                self._touch(parse_ts(record.get("lastUpdated")))
                return
        if "$set" in record:
            self._set(record["$set"])
            return
        if "$rewindTo" in record:
            self._rewind(record["$rewindTo"])
            return
        facts = message_facts(record)
        if facts is not None:
            # Re-appended under the same id: the newer copy replaces the older in place.
            self.messages[facts.id] = facts
            self.model = facts.model or self.model

    def _touch(self, at: datetime | None) -> None:
        if at is not None and (self.updated_at is None or at > self.updated_at):
            self.updated_at = at

    def _set(self, patch: object) -> None:
        if not isinstance(patch, dict):
            return
        self._touch(parse_ts(patch.get("lastUpdated")))
        if "directories" in patch:
            self.directories = directories_of(patch["directories"])
        summary = patch.get("summary")
        if isinstance(summary, str) and summary.strip():
            self.summary = summary
        snapshot = patch.get("messages")
        if isinstance(snapshot, list):
            self.messages = {}
            for item in snapshot:
                facts = message_facts(item) if isinstance(item, dict) else None
                if facts is not None:
                    self.messages[facts.id] = facts
                    self.model = facts.model or self.model

    def _rewind(self, target: object) -> None:
        if not isinstance(target, str) or target not in self.messages:
            return
        kept: dict[str, MessageFacts] = {}
        for ident, facts in self.messages.items():
            if ident == target:
                break
            kept[ident] = facts
        self.messages = kept
