"""One transcript folded record by record into a bounded summary, read incrementally.

:class:`Summary` holds everything the plugin derives from a transcript and stays the same
size however long the file grows. :func:`follow` keeps a :class:`Transcript` (a
:class:`~cargento.readers.JsonlFollower` plus its summary) in the plugin's cache, so a
refresh reads only the bytes appended since the last one and a file that was truncated or
replaced is folded again from scratch.

A cold read of a transcript larger than :data:`MAX_COLD_SCAN_BYTES` starts that far from its
end (its head is read separately for identity and the first prompt). Such a summary is
*partial*: readings that describe the whole file (the output total) or the whole request
(two of the loop readings) are withheld.
"""

from __future__ import annotations

import os
from collections import OrderedDict, deque
from datetime import datetime
from typing import Any

from cargento.cache import HarnessCache
from cargento.drift import DriftCounter
from cargento.models import LoopReading, SpacedockBoot, TurnEvidence
from cargento.rates import TokenTimeline
from cargento.readers import FileIdentity, JsonlFollower, head_bytes, open_regular, read_head_records
from cargento.spacedock import is_boot_command, parse_boot
from cargento.turns import TurnClock

from cargento_harness_claude import records as rec
from cargento_harness_claude.loops import ToolOutcomes

__all__ = ["HEAD_BYTES", "HEAD_RECORDS", "MAX_COLD_SCAN_BYTES", "Summary", "Transcript", "follow", "followed", "retain"]

#: A cold read of a larger transcript starts this many bytes before its end.
MAX_COLD_SCAN_BYTES = 256 * 1024 * 1024
#: Identity fields (cwd, agentName, teamName, agentSetting) come from the first records.
HEAD_RECORDS = 50
HEAD_BYTES = 256 * 1024
#: Bounds on what a summary remembers.
_MAX_PROMPTS = 12
#: The newest API responses whose output tokens are remembered (to count each once). The
#: records one response is split into are written one after another, with at most a few
#: subagents' sidechain records between them; 512 kept about 90 KB a long session, 64 keep 11.
_MAX_MESSAGE_IDS = 64
_MAX_OPEN_CALLS = 64
_MAX_TASK_TIMES = 1000
_HEAD_CHECK_BYTES = 512


class Summary:
    """The bounded fold of one transcript's records (feed them oldest first)."""

    def __init__(self, *, partial: bool = False) -> None:
        #: The fold started partway through the file (see the module docstring).
        self.partial = partial
        self.cwd: str | None = None
        self.agent_name: str | None = None
        self.team_name: str | None = None
        self.agent_setting: str | None = None
        self.head_seen = 0
        #: user and assistant records seen: a file with none is not a session.
        self.messages = 0
        self.title: str | None = None
        self.last_prompt: str | None = None
        self.first_prompt: str | None = None
        self.prompts: deque[tuple[str, datetime | None]] = deque(maxlen=_MAX_PROMPTS)
        self.model: str | None = None
        #: ``modelId`` to marketing name, from the ``model`` attachment.
        self.model_names: dict[str, str] = {}
        self.first_at: datetime | None = None
        self.last_at: datetime | None = None
        self.output_total = 0
        self._by_message: OrderedDict[str, int] = OrderedDict()
        #: Output tokens by timestamp, each response once (the last quarter hour of them).
        self.events = TokenTimeline()
        self.clock = TurnClock()
        self.open_calls: OrderedDict[str, tuple[rec.ToolCall, datetime | None]] = OrderedDict()
        self.last_tool: str | None = None
        #: The newest tool call's recorded name when ``last_tool`` renames it (MCP tools).
        self.last_tool_raw: str | None = None
        self.last_kind = ""
        self.outcomes = ToolOutcomes(whole_request=not partial)
        #: Task id to the time its ``TaskCreate`` result was written.
        self.task_created: OrderedDict[str, datetime] = OrderedDict()
        #: Ids of Bash calls that ran ``spacedock status --boot``, and the newest boot result.
        self.boot_calls: deque[str] = deque(maxlen=_MAX_OPEN_CALLS)
        self.spacedock: SpacedockBoot | None = None
        #: The Claude Code version the newest message record names.
        self.version: str | None = None
        #: Record types this build does not know, counted (schema drift).
        self.drift = DriftCounter()

    # -- folding -----------------------------------------------------------------------

    def absorb_head(self, record: dict[str, Any]) -> None:
        """Take identity fields from one of the file's first records."""
        for key, attr in (
            ("cwd", "cwd"),
            ("agentName", "agent_name"),
            ("teamName", "team_name"),
            ("agentSetting", "agent_setting"),
        ):
            value = record.get(key)
            if getattr(self, attr) is None and isinstance(value, str) and value.strip():
                setattr(self, attr, value.strip())

    def feed(self, record: dict[str, Any]) -> None:
        """Fold one record."""
        if self.head_seen < HEAD_RECORDS:
            self.head_seen += 1
            self.absorb_head(record)
        elif self.cwd is None:
            value = record.get("cwd")
            if isinstance(value, str) and value.strip():
                self.cwd = value.strip()
        kind = rec.record_type(record)
        at = rec.timestamp(record)
        if kind not in rec.KNOWN_TYPES:
            self.drift.record_type(kind or "line without a type")
        if kind in ("custom-title", "ai-title"):
            value = record.get("customTitle" if kind == "custom-title" else "aiTitle")
            if isinstance(value, str) and value.strip():
                self.title = value.strip()
            return
        if kind == "last-prompt":
            value = record.get("lastPrompt")
            if isinstance(value, str) and value.strip():
                self.last_prompt = value
            return
        if kind == "attachment":
            self._attachment(record)
            return
        if kind not in rec.MESSAGE_TYPES:
            return
        if at is not None:
            if self.first_at is None or at < self.first_at:
                self.first_at = at
            if self.last_at is None or at > self.last_at:
                self.last_at = at
        version = record.get("version")
        if isinstance(version, str) and version.strip():
            self.version = version.strip()[:40]
        if kind == "user":
            self.messages += 1
            self._user(record, at)
        elif kind == "assistant":
            self.messages += 1
            self._assistant(record, at)
        else:
            self._system(record, at)

    def _attachment(self, record: dict[str, Any]) -> None:
        body = record.get("attachment")
        if not isinstance(body, dict) or body.get("type") != "model":
            return
        identity = body.get("identity")
        if isinstance(identity, dict):
            ident, name = identity.get("modelId"), identity.get("marketingName")
            if isinstance(ident, str) and isinstance(name, str) and ident and name and len(self.model_names) < 32:
                self.model_names[ident] = name

    def _user(self, record: dict[str, Any], at: datetime | None) -> None:
        results = list(rec.tool_results(record))
        if results:
            for result in results:
                if result.tool_use_id is not None:
                    self.open_calls.pop(result.tool_use_id, None)
                    if result.tool_use_id in self.boot_calls and not result.is_error:
                        boot = parse_boot(rec.result_text(result.content), at)
                        if boot is not None:
                            self.spacedock = boot
                self.outcomes.outcome(failed=result.is_error)
            self._task_created(record, at)
            self.last_kind = "result"
            self.clock.activity(at)
            return
        if rec.is_interruption(record):
            self.open_calls.clear()
            self.clock.end(at)
            self.last_kind = "end"
            return
        if record.get("isMeta") is True:
            self.clock.activity(at)
            return
        prompt = rec.human_prompt(record)
        if prompt is not None:
            self.prompts.append((prompt, at))
            if self.first_prompt is None and not self.partial:
                self.first_prompt = prompt
            self.outcomes.new_request()
            self.open_calls.clear()
            self.last_tool = self.last_tool_raw = None
            self.clock.start(at)
        elif self.clock.state == "open":
            self.clock.activity(at)
        else:
            # A turn Claude Code started itself: a task notification, a teammate's message.
            self.clock.start(at)
        self.last_kind = "prompt"

    def _task_created(self, record: dict[str, Any], at: datetime | None) -> None:
        result = record.get("toolUseResult")
        if at is None or not isinstance(result, dict):
            return
        task = result.get("task")
        if isinstance(task, dict) and isinstance(task.get("id"), str | int) and not isinstance(task.get("id"), bool):
            self.task_created[str(task["id"])] = at
            while len(self.task_created) > _MAX_TASK_TIMES:
                self.task_created.popitem(last=False)

    def _assistant(self, record: dict[str, Any], at: datetime | None) -> None:
        model = rec.model_of(record)
        if model is not None:
            self.model = model
        self._tokens(record, at)
        if self.clock.state == "ended":
            self.clock.start(at)
        else:
            self.clock.activity(at)
        calls = list(rec.tool_calls(record))
        for call in calls:
            self.open_calls[call.id or f"#{len(self.open_calls)}"] = (call, at)
            while len(self.open_calls) > _MAX_OPEN_CALLS:
                self.open_calls.popitem(last=False)
            self.last_tool = rec.tool_display(call.name)
            if call.id and call.name == "Bash" and is_boot_command(call.input.get("command")):
                self.boot_calls.append(call.id)
            self.last_tool_raw = call.name if self.last_tool != call.name else None
        if calls:
            self.last_kind = "tool"
        elif rec.is_synthetic(record) and record.get("isApiErrorMessage") is True:
            self.clock.end(at)
            self.last_kind = "end"
        elif rec.stop_reason(record) == "end_turn":
            self.open_calls.clear()
            self.clock.end(at)
            self.last_kind = "end"
        elif not rec.text(record).strip() and _only_thinking(record):
            self.last_kind = "thinking"
        else:
            self.last_kind = "text"

    def _tokens(self, record: dict[str, Any], at: datetime | None) -> None:
        ident, tokens = rec.assistant_output(record)
        if tokens is None:
            return
        if ident is None:
            added = tokens
        else:
            seen = self._by_message.get(ident)
            added = tokens if seen is None else max(0, tokens - seen)
            self._by_message[ident] = max(tokens, seen or 0)
            self._by_message.move_to_end(ident)
            while len(self._by_message) > _MAX_MESSAGE_IDS:
                self._by_message.popitem(last=False)
        if added <= 0:
            return
        self.output_total += added
        self.events.add(at, added)

    def _system(self, record: dict[str, Any], at: datetime | None) -> None:
        if record.get("subtype") == "turn_duration":
            self.open_calls.clear()
            self.clock.end(at)
            self.last_kind = "end"
        else:
            self.clock.activity(at)

    # -- readings ----------------------------------------------------------------------

    @property
    def is_session(self) -> bool:
        """False for a file of metadata records only (titles, agent names, PR links)."""
        return self.messages > 0

    @property
    def turn_open(self) -> bool:
        return self.clock.state == "open"

    def turn(self) -> TurnEvidence:
        """What the transcript records about the current turn."""
        return self.clock.evidence()

    @property
    def thinking(self) -> bool:
        """The model holds an open turn with no tool call open."""
        return self.turn_open and not self.open_calls and self.last_kind in ("prompt", "result", "thinking")

    def pending_input(self) -> tuple[rec.ToolCall, datetime | None] | None:
        """The newest AskUserQuestion or ExitPlanMode call with no result yet."""
        if self.clock.state == "ended":
            return None
        for call, at in reversed(self.open_calls.values()):
            if call.name in rec.INPUT_TOOLS:
                return call, at
        return None

    def newest_open_call(self) -> tuple[rec.ToolCall, datetime | None] | None:
        """The newest tool call still waiting for its result."""
        if self.clock.state == "ended" or not self.open_calls:
            return None
        return next(reversed(self.open_calls.values()))

    def loop(self) -> LoopReading | None:
        return self.outcomes.reading()

    def window_tokens(self, now: datetime) -> int:
        return self.events.in_window(now)

    @property
    def total(self) -> int | None:
        """Output tokens of the whole transcript, each API response once; ``None`` when partial."""
        return None if self.partial else self.output_total


def _only_thinking(record: dict[str, Any]) -> bool:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not content:
        return False
    return all(isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking") for b in content)


class Transcript:
    """A followed transcript file and its summary."""

    def __init__(self, path: str, *, max_cold_bytes: int = MAX_COLD_SCAN_BYTES) -> None:
        self.path = path
        self.max_cold_bytes = max_cold_bytes
        self.follower = JsonlFollower(path)
        self.summary = Summary()
        self.started = False
        #: The file's first bytes: a file rewritten in place (same inode, grown) shows here.
        self.head = b""

    def _cold_start(self) -> None:
        self.follower = JsonlFollower(self.path)
        self.head = head_bytes(self.path, _HEAD_CHECK_BYTES)
        size = os.stat(self.path).st_size
        if size <= self.max_cold_bytes:
            self.summary = Summary()
            return
        self.summary = Summary(partial=True)
        head, _ = read_head_records(self.path, max_lines=HEAD_RECORDS, max_bytes=HEAD_BYTES)
        for record in head:
            self.summary.absorb_head(record)
            if self.summary.first_prompt is None:
                self.summary.first_prompt = rec.human_prompt(record)
            at = rec.timestamp(record)
            if at is not None and rec.record_type(record) in rec.MESSAGE_TYPES and self.summary.first_at is None:
                self.summary.first_at = at
        self.summary.head_seen = HEAD_RECORDS
        start = _line_start_after(self.path, size - self.max_cold_bytes)
        st = os.stat(self.path)
        self.follower.offset = start
        # A follower positioned mid-file: same inode, "last seen" at the start offset.
        self.follower.identity = FileIdentity(st.st_dev, st.st_ino, start, st.st_mtime_ns)

    def refresh(self) -> Summary:
        """Fold the records appended since the last refresh (all of them the first time)."""
        if not self.started:
            self._cold_start()
            self.started = True
        elif not self.follower.changed():
            return self.summary
        elif self.head and head_bytes(self.path, len(self.head)) != self.head:
            self._cold_start()
        stream = self.follower.iter_new()
        first = next(stream, None)
        if self.follower.reset:
            self._cold_start()
            stream = self.follower.iter_new()
            first = next(stream, None)
        if first is not None:
            self.summary.feed(first)
            for record in stream:
                self.summary.feed(record)
        return self.summary


def _line_start_after(path: str, offset: int) -> int:
    """The offset of the first line that starts at or after *offset*."""
    if offset <= 0:
        return 0
    with open_regular(path) as fh:
        fh.seek(offset - 1)
        while True:
            block = fh.read(64 * 1024)
            if not block:
                return fh.tell()
            newline = block.find(b"\n")
            if newline >= 0:
                return fh.tell() - len(block) + newline + 1


_TRANSCRIPTS_KEY = "transcripts"


def followed(cache: HarnessCache) -> dict[str, Transcript]:
    """The followed transcripts, by path: one cache entry, pruned by :func:`retain` rather
    than by the cache's LRU (which would thrash on a store of thousands of sessions)."""
    table: dict[str, Transcript] = cache.setdefault(_TRANSCRIPTS_KEY, dict)
    return table


def retain(cache: HarnessCache, paths: set[str]) -> None:
    """Forget every followed transcript not in *paths* (those discovery no longer lists)."""
    table = followed(cache)
    for gone in [p for p in table if p not in paths]:
        del table[gone]


def follow(cache: HarnessCache, path: str, *, max_cold_bytes: int | None = None) -> Summary:
    """The up-to-date summary of the transcript at *path*, kept in *cache* between builds.

    Raises :class:`OSError` when the file cannot be read.
    """
    bound = MAX_COLD_SCAN_BYTES if max_cold_bytes is None else max_cold_bytes
    table = followed(cache)
    entry = table.get(path)
    if entry is None or entry.max_cold_bytes != bound:
        entry = Transcript(path, max_cold_bytes=bound)
        table[path] = entry
    return entry.refresh()
