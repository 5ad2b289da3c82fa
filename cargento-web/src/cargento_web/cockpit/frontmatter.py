"""The YAML frontmatter block at the head of a Markdown file, read bounded and safely.

Only the block between a first line ``---`` and the next ``---`` is parsed (``yaml.safe_load``,
so no tags construct objects), and only its first :data:`MAX_FRONTMATTER_BYTES` bytes are read:
a file whose block does not close inside them has no frontmatter here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["MAX_FRONTMATTER_BYTES", "read_frontmatter"]

#: The most of a file's head read for its frontmatter.
MAX_FRONTMATTER_BYTES = 32 * 1024


def parse_frontmatter(head: bytes) -> dict[str, Any] | None:
    """The frontmatter mapping of a file's *head* bytes, or ``None`` when there is none, it
    does not close within the head, or it is not a YAML mapping."""
    text = head.decode("utf-8", "replace").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    closing = text[end + 4 : end + 5]
    if closing not in ("", "\n"):
        return None
    import yaml  # on the first frontmatter read, not at every server start (a Spacedock-free run reads none)

    try:
        value = yaml.safe_load(text[4:end])
    except yaml.YAMLError:
        return None
    return value if isinstance(value, dict) else None


def read_frontmatter(path: Path) -> dict[str, Any] | None:
    """The frontmatter of the regular file at *path* (never following it to a device or a
    FIFO), or ``None``; raises ``OSError`` when the file cannot be opened."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not _is_regular(fd):
            return None
        head = os.read(fd, MAX_FRONTMATTER_BYTES)
    finally:
        os.close(fd)
    return parse_frontmatter(head)


def _is_regular(fd: int) -> bool:
    import stat

    return stat.S_ISREG(os.fstat(fd).st_mode)
