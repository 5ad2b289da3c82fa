"""Wording a session's work for a drift reading (a plugin's ``work_record`` hook): one line of
bounded text, the end of a tool's output, the text of a message's content blocks."""

from __future__ import annotations

__all__ = ["content_text", "last_chars", "one_line"]


def one_line(text: str, limit: int) -> str:
    """*text* on one line (runs of whitespace become one space), cut to *limit* with an ellipsis."""
    joined = " ".join(text.split())
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def last_chars(text: str, count: int) -> str:
    """The last *count* characters of *text* on one line: how a check's output ends."""
    return " ".join(text.split())[-count:]


def content_text(content: object) -> str:
    """The text of a message's content: a string, or a list of blocks with ``text`` (nested
    lists followed); anything else has none."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(content_text(part.get("text") if isinstance(part, dict) else part) for part in content)
    return ""
