"""The ``meta`` table of a Cursor chat store: hex-encoded JSON describing the chat.

Key ``0`` holds ``{agentId, latestRootBlobId, name, mode, createdAt, subagentInfo?, ...}``. Most
builds hex-encode the UTF-8 JSON; some write it plainly, and a value may arrive as bytes. The
payload also carries ``blobEncryptionKey``, a credential this plugin never reads: it is dropped
the moment the payload is parsed and nothing derived from it is kept.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import attrs
import orjson
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["KNOWN_KEYS", "SECRET_KEYS", "WORKSPACE_KEYS", "ChatMeta", "decode_payload", "parse_meta"]

#: Keys never read (credentials); removed from every decoded payload at once.
SECRET_KEYS = frozenset({"blobEncryptionKey"})
#: Fallback spellings of a workspace in the payload, beneath ``meta.json``'s ``cwd``.
WORKSPACE_KEYS = ("workspacePath", "workspace", "rootPath", "projectPath", "folder", "cwd")
#: Every key of the meta payload this build knows, read or not; any other is schema drift.
KNOWN_KEYS = frozenset(
    {"agentId", "latestRootBlobId", "name", "mode", "createdAt", "lastUsedModel", "subagentInfo"}
    | SECRET_KEYS
    | set(WORKSPACE_KEYS)
)
_HEX = re.compile(rb"^[0-9a-fA-F]+$")
_ROOT_ID = re.compile(r"^[0-9a-fA-F]{64}$")
#: A meta value larger than this is not a chat's meta payload.
MAX_PAYLOAD = 1_048_576


def decode_payload(value: object) -> dict[str, Any] | None:
    """The JSON object in one ``meta`` value (hex or plain, str or bytes), secrets removed."""
    if isinstance(value, str):
        raw = value.encode("utf-8", "replace")
    elif isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value)
    else:
        return None
    raw = raw.strip()
    if not raw or len(raw) > MAX_PAYLOAD:
        return None
    if not raw.startswith(b"{"):
        if len(raw) % 2 or not _HEX.match(raw):
            return None
        raw = bytes.fromhex(raw.decode("ascii"))
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(payload, dict):
        return None
    for key in SECRET_KEYS:
        payload.pop(key, None)
    return payload


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ChatMeta:
    """What the meta payload says about the chat."""

    name: str | None = None
    root_blob_id: str | None = None
    created_at: datetime | None = None
    #: The agent this chat is a subagent of (``subagentInfo.rootParentAgentId``).
    parent_id: str | None = None
    #: The subagent's type, its pill label (``typeName``).
    type_name: str | None = None
    #: Workspace spellings found in the payload, in preference order.
    workspaces: tuple[str, ...] = ()
    #: ``lastUsedModel``: the model the chat last ran on, as Cursor names it.
    last_used_model: str | None = None
    #: Payload keys this build does not know (schema drift), sorted.
    unknown_keys: tuple[str, ...] = ()


def parse_meta(payload: dict[str, Any]) -> ChatMeta:
    """A :class:`ChatMeta` from a decoded payload; unusable fields are left ``None``."""
    root = _text(payload.get("latestRootBlobId"))
    info = payload.get("subagentInfo")
    parent = type_name = None
    if isinstance(info, dict):
        parent = _text(info.get("rootParentAgentId")) or _text(info.get("parentAgentId"))
        type_name = _text(info.get("typeName"))
    created = payload.get("createdAt")
    return ChatMeta(
        name=_text(payload.get("name")),
        root_blob_id=root.lower() if root and _ROOT_ID.match(root) else None,
        created_at=parse_ts(created) if isinstance(created, int | float) and not isinstance(created, bool) else None,
        parent_id=parent,
        type_name=type_name,
        workspaces=tuple(w for k in WORKSPACE_KEYS if (w := _text(payload.get(k)))),
        last_used_model=_text(payload.get("lastUsedModel")),
        # The secret was dropped by decode_payload; a payload given here with it is not drift either.
        unknown_keys=tuple(sorted(k[:80] for k in payload if k not in KNOWN_KEYS)),
    )
