"""One Goose ``sessions`` row: what kind of session it is, and whether it belongs on the board."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import attrs
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["HIDDEN_TYPES", "KNOWN_TYPES", "SessionRow", "model_of_config", "normalise_type", "parse_row"]

#: Infrastructure session types that are never a row of their own.
HIDDEN_TYPES = frozenset({"hidden", "terminal", "gateway", "acp"})
#: Session types that mark a subagent (``sub_agent`` in some builds, ``subagent`` in others).
SUBAGENT_TYPES = frozenset({"subagent"})
#: Every session type this build knows, normalised; any other is counted as schema drift.
KNOWN_TYPES = frozenset({"user", "scheduled"}) | SUBAGENT_TYPES | HIDDEN_TYPES
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def normalise_type(value: object) -> str:
    """``Sub_Agent`` → ``subagent``; anything unreadable is the default ``user``."""
    if not isinstance(value, str) or not value.strip():
        return "user"
    return _NON_ALNUM.sub("", value.lower()) or "user"


def _text(value: object) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def _int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class SessionRow:
    """The facts of one ``sessions`` row this plugin uses."""

    id: str
    title: str | None
    kind: str
    working_dir: str | None
    created_at: datetime | None
    updated_at: datetime | None
    archived: bool
    parent_id: str | None
    output_tokens_total: int | None
    newest_message: int | None
    #: The raw ``updated_at`` text, part of the change fingerprint.
    updated_raw: str
    #: ``model_name`` of the row's ``model_config_json``, verbatim; ``None`` when the row names none.
    model: str | None = None
    #: ``provider_name`` of the row (``anthropic``, ``openai``...).
    provider: str | None = None

    @property
    def is_subagent(self) -> bool:
        return self.kind in SUBAGENT_TYPES

    @property
    def shown(self) -> bool:
        """Archived and infrastructure sessions are never on the board."""
        return not self.archived and self.kind not in HIDDEN_TYPES

    def fingerprint(self) -> str:
        return "|".join(
            str(x)
            for x in (
                self.updated_raw,
                self.newest_message,
                self.title,
                self.kind,
                self.parent_id,
                self.output_tokens_total,
                self.model,
                self.provider,
            )
        )


def parse_row(raw: dict[str, Any]) -> SessionRow | None:
    """A :class:`SessionRow` from a query row, or ``None`` when the row has no usable id."""
    sid = _text(raw.get("id"))
    if sid is None:
        return None
    name = _text(raw.get("name"))
    archived_raw = raw.get("archived_at")
    updated = raw.get("updated_at")
    return SessionRow(
        id=sid,
        title=name or _text(raw.get("description")),
        kind=normalise_type(raw.get("session_type")),
        working_dir=_text(raw.get("working_dir")),
        created_at=parse_ts(raw.get("created_at")),
        updated_at=parse_ts(updated),
        archived=archived_raw is not None and archived_raw != "",
        parent_id=_text(raw.get("parent_session_id")),
        output_tokens_total=_nonneg(_int(raw.get("accumulated_output_tokens"))),
        newest_message=_int(raw.get("newest_message")),
        updated_raw=str(updated),
        model=model_of_config(raw.get("model_config_json")),
        provider=_text(raw.get("provider_name")),
    )


#: Bytes of ``model_config_json`` parsed at most (the row's own configuration, a few hundred bytes).
MODEL_CONFIG_MAX = 16_384


def model_of_config(value: object) -> str | None:
    """The ``model_name`` a session row's ``model_config_json`` records, or ``None`` when the
    column is empty, not JSON, oversized or names no model."""
    text = _text(value)
    if text is None or len(text) > MODEL_CONFIG_MAX:
        return None
    try:
        config = json.loads(text)
    except ValueError:
        return None
    return _text(config.get("model_name")) if isinstance(config, dict) else None


def _nonneg(value: int | None) -> int | None:
    return value if value is None or value >= 0 else None
