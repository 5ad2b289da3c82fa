"""The running state of one Gemini CLI chat file, fed record by record as the file grows.

Gemini CLI re-appends a message under the same ``id`` whenever it attaches tokens or tool calls,
replaces the whole list with a ``$set.messages`` snapshot when a session is resumed, and drops a
message and everything after it on ``$rewindTo``. The state keeps one
:class:`~cargento_harness_gemini.records.MessageFacts` per message id in file order, so each
API response is counted once (the last copy wins) and a rewind forgets what it removed. It never
holds message content beyond a clipped prompt.
"""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

from cargento.drift import DriftCounter
from cargento.timestamps import parse_ts

from cargento_harness_gemini.records import Header, MessageFacts, directories_of, header_of, message_facts

__all__ = ["KNOWN_FIELDS", "KNOWN_PATCHES", "KNOWN_TYPES", "ChatState"]

#: Message types the CLI writes (``info``/``error``/``warning`` are read as activity only).
KNOWN_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
#: Message fields the CLI writes; any other is counted as schema drift.
KNOWN_FIELDS = frozenset(
    {"id", "timestamp", "type", "content", "displayContent", "toolCalls", "thoughts", "tokens", "model"}
)
#: ``$set`` patch keys the CLI writes: any field of its ``ConversationRecord``
#: (``packages/core/src/services/chatRecordingTypes.ts``), ``sessionId`` on every resume among
#: them, and ``memoryScratchpad``, which its loader reads from a patch.
KNOWN_PATCHES = frozenset(
    {
        "sessionId",
        "projectHash",
        "startTime",
        "lastUpdated",
        "messages",
        "summary",
        "directories",
        "kind",
        "activeExtensionName",
        "memoryScratchpad",
    }
)


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
        #: Where each message stands in :attr:`messages` (its position, from 0).
        self.positions: dict[str, int] = {}
        #: The lowest position a message changed at (was added, replaced or dropped) since
        #: :func:`~cargento_harness_gemini.history.history_for` last derived the facts: the
        #: messages before it are as that derivation saw them, so it resumes from its
        #: checkpoint instead of walking the whole chat again.
        self.changed_from = 0
        #: The resumable walk :func:`~cargento_harness_gemini.history.history_for` keeps.
        self.checkpoint: Any = None
        #: What was skipped as unknown: record shapes, message types, fields, patch keys.
        self.drift = DriftCounter()

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
            patch = record["$set"]
            if isinstance(patch, dict):
                for key in patch:
                    if key not in KNOWN_PATCHES:
                        self.drift.field(f"$set.{key}")
            self._set(patch)
            return
        if "$rewindTo" in record:
            self._rewind(record["$rewindTo"])
            return
        facts = message_facts(record)
        self._count(record, facts is not None)
        if facts is not None:
            # Re-appended under the same id: the newer copy replaces the older in place.
            self._put(facts)
            self.model = facts.model or self.model

    def _put(self, facts: MessageFacts) -> None:
        position = self.positions.get(facts.id)
        if position is None:
            position = self.positions[facts.id] = len(self.messages)
        self.messages[facts.id] = facts
        self.changed_from = min(self.changed_from, position)

    def _count(self, record: dict[str, Any], message: bool) -> None:
        """Count what this build does not understand in one line (schema drift)."""
        if not message:
            keys = sorted(k for k in record if isinstance(k, str))[:4]
            self.drift.record_type("line with " + (", ".join(keys) if keys else "no keys"))
            return
        kind = record.get("type")
        if isinstance(kind, str) and kind not in KNOWN_TYPES:
            self.drift.record_type(f"message type {kind}")
        for key in record:
            if isinstance(key, str) and key not in KNOWN_FIELDS:
                self.drift.field(key)

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
            self.messages, self.positions, self.changed_from = {}, {}, 0
            for item in snapshot:
                facts = message_facts(item) if isinstance(item, dict) else None
                if facts is not None:
                    self._put(facts)
                    self.model = facts.model or self.model

    def _rewind(self, target: object) -> None:
        if not isinstance(target, str) or target not in self.messages:
            return
        cut = self.positions[target]
        self.messages = dict(itertools.islice(self.messages.items(), cut))
        self.positions = {ident: position for ident, position in self.positions.items() if position < cut}
        self.changed_from = min(self.changed_from, cut)
