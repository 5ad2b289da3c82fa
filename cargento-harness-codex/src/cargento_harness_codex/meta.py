"""A rollout's identity: the ``session_meta`` record on line 1, read with a bounded head."""

from __future__ import annotations

import os
import re
from datetime import datetime
from typing import Any

import attrs
import orjson
from cargento.readers import head_bytes, loads_record
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["HEAD_BYTES", "RolloutMeta", "meta_from_head", "meta_from_record", "read_meta", "stem_id"]

#: How much of line 1 is read. Line 1 embeds the base instructions and can be large; past this
#: bound the identity fields are taken from the line's prefix, where Codex writes them.
HEAD_BYTES = 512 * 1024
_PREFIX_BYTES = 64 * 1024
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_FIELD = re.compile(
    rb'"(id|cwd|timestamp|thread_source|agent_nickname|agent_role|agent_path|parent_thread_id|cli_version|forked_from_id)"\s*:\s*("(?:[^"\\]|\\.){0,4096}"|null)'
)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class RolloutMeta:
    """What line 1 says about a rollout."""

    id: str
    cwd: str | None = None
    started_at: datetime | None = None
    #: ``subagent`` for a subagent thread; ``user`` (or absent) otherwise.
    thread_source: str | None = None
    parent_id: str | None = None
    nickname: str | None = None
    role: str | None = None
    agent_path: str | None = None
    cli_version: str | None = None

    @property
    def is_subagent(self) -> bool:
        return self.thread_source == "subagent" or self.parent_id is not None

    @property
    def agent_name(self) -> str:
        """The pill label: the nickname, else the agent path's last part, else ``subagent``."""
        if self.nickname:
            return self.nickname
        if self.agent_path:
            return self.agent_path.rstrip("/").rsplit("/", 1)[-1] or "subagent"
        return "subagent"


def stem_id(path: str | os.PathLike[str]) -> str:
    """The id at the end of a ``rollout-<time>-<uuid>.jsonl`` name, or the whole stem."""
    stem = os.path.basename(os.fspath(path))
    if stem.endswith(".jsonl"):
        stem = stem[: -len(".jsonl")]
    match = _UUID.search(stem)
    return match.group() if match else stem


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _spawn(source: Any) -> dict[str, Any]:
    if isinstance(source, dict):
        sub = source.get("subagent")
        if isinstance(sub, dict):
            spawn = sub.get("thread_spawn")
            if isinstance(spawn, dict):
                return spawn
    return {}


def meta_from_record(record: dict[str, Any], path: str | os.PathLike[str]) -> RolloutMeta | None:
    """Identity from a parsed line 1, or ``None`` when it is not a ``session_meta`` record."""
    if record.get("type") != "session_meta":
        return None
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None
    spawn = _spawn(payload.get("source"))
    thread_source = _text(payload.get("thread_source"))
    parent = _text(spawn.get("parent_thread_id")) or (
        _text(payload.get("parent_thread_id")) if thread_source == "subagent" else None
    )
    return RolloutMeta(
        id=_text(payload.get("id")) or stem_id(path),
        cwd=_text(payload.get("cwd")),
        started_at=parse_ts(payload.get("timestamp")) or parse_ts(record.get("timestamp")),
        thread_source=thread_source or ("subagent" if spawn else None),
        parent_id=parent,
        nickname=_text(payload.get("agent_nickname")) or _text(spawn.get("agent_nickname")),
        role=_text(payload.get("agent_role")) or _text(spawn.get("agent_role")),
        agent_path=_text(payload.get("agent_path")) or _text(spawn.get("agent_path")),
        cli_version=_text(payload.get("cli_version")),
    )


def meta_from_prefix(prefix: bytes, path: str | os.PathLike[str]) -> RolloutMeta | None:
    """Identity from the start of a line 1 too long to parse whole.

    Codex writes the small identity fields before the embedded instructions, so the first
    occurrence of each field name in the prefix is taken. A prefix that does not begin a
    ``session_meta`` record yields ``None``.
    """
    if b'"session_meta"' not in prefix[:512]:
        return None
    fields: dict[str, str | None] = {}
    for match in _FIELD.finditer(prefix):
        name = match.group(1).decode()
        if name in fields:
            continue
        raw = match.group(2)
        if raw == b"null":
            fields[name] = None
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        fields[name] = value if isinstance(value, str) else None
    if "parent_thread_id" in fields and fields.get("thread_source") is None and fields["parent_thread_id"]:
        fields["thread_source"] = "subagent"
    synthetic: dict[str, Any] = {"type": "session_meta", "payload": dict(fields)}
    spawn: dict[str, Any] = {}
    for key in ("parent_thread_id", "agent_nickname", "agent_role", "agent_path"):
        if fields.get(key):
            spawn[key] = fields[key]
    if fields.get("thread_source") == "subagent" and spawn:
        synthetic["payload"]["source"] = {"subagent": {"thread_spawn": spawn}}
    return meta_from_record(synthetic, path)


def meta_from_head(data: bytes, path: str | os.PathLike[str]) -> tuple[RolloutMeta | None, bool]:
    """Identity from the first bytes of a rollout, and whether that verdict is final.

    A line 1 that is still being written (no newline yet, and shorter than the bound) is not
    final: the caller reads it again later instead of caching the answer.
    """
    newline = data.find(b"\n")
    if newline >= 0:
        record = loads_record(data[:newline])
        return (meta_from_record(record, path) if record is not None else None), True
    if len(data) >= HEAD_BYTES:
        return meta_from_prefix(data[:_PREFIX_BYTES], path), True
    return None, False


def read_meta(path: str | os.PathLike[str]) -> tuple[RolloutMeta | None, bool]:
    """Read line 1 of a rollout with a bounded head read (see :func:`meta_from_head`)."""
    return meta_from_head(head_bytes(path, HEAD_BYTES), path)
