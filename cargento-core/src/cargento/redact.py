"""Credential redaction: credential-shaped values never reach a page or the API."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["MARK", "redact", "redact_tree"]

MARK = "…REDACTED"

_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    re.compile(r"\b(sk-(?:ant-|proj-)?)[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\b(gh[pousr]_)[A-Za-z0-9]{20,}"),
    re.compile(r"\b(github_pat_)[A-Za-z0-9_]{20,}"),
    re.compile(r"\b(xox[abposr]-)[A-Za-z0-9\-]{10,}"),
    re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\b(AIza)[0-9A-Za-z_\-]{30,}"),
    re.compile(r"\b(glpat-)[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\b(npm_)[A-Za-z0-9]{30,}"),
    re.compile(r"\b(eyJ)[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
    re.compile(
        r"(?i)\b([A-Za-z0-9_]*(?:api[_-]?key|secret|token|passw(?:or)?d|passwd|client[_-]?secret|access[_-]?key)"
        r"[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]{4,}"
    ),
)


def _keep_prefix(match: re.Match[str]) -> str:
    prefix = match.group(1) if match.groups() and match.group(1) else ""
    return prefix + MARK


def redact(text: str) -> str:
    """Replace every credential-shaped value in *text* with ``…REDACTED``.

    The recognisable prefix (``sk-``, ``ghp_``, ``password=``) is kept so a reader can tell
    what kind of value it was.
    """
    if not text:
        return text
    for pattern in _PATTERNS:
        if pattern.pattern.startswith("-----"):
            text = pattern.sub(MARK, text)
        else:
            text = pattern.sub(_keep_prefix, text)
    return text


def redact_tree(value: Any) -> Any:
    """*value* with :func:`redact` applied to every string value in it, at any depth
    (mappings, lists and tuples are rebuilt; keys, which are field names, and other values are
    kept as they are).

    The one step every outbound document goes through: the page's API answers, the server's
    own stores on disk, notification texts and log lines.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: redact_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_tree(v) for v in value]
    return value
