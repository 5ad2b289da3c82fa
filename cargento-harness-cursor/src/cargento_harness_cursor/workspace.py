"""The workspace of a Cursor chat: ``cwd`` in the ``meta.json`` beside its store.

A bare path or a ``file://`` URL is accepted only when it names a directory that exists, since
a wrong guess would label the row confidently and wrongly. A store without ``meta.json`` (a
subagent's has none) simply has no workspace.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Iterable
from pathlib import Path

from cargento.readers import read_json_object

__all__ = ["META_JSON", "existing_dir", "resolve", "sidecar_cwd"]

META_JSON = "meta.json"
MAX_BYTES = 65_536


def existing_dir(value: str) -> str | None:
    """*value* as an absolute directory path when it exists, else ``None``."""
    text = value.strip()
    if text.startswith("file://"):
        parsed = urllib.parse.urlsplit(text)
        if parsed.netloc not in ("", "localhost"):
            return None
        text = urllib.parse.unquote(parsed.path)
        if len(text) > 2 and text[0] == "/" and text[2] == ":":  # file:///C:/w → C:/w
            text = text[1:]
    if not text or "\x00" in text or len(text) > 4096:
        return None
    path = Path(text)
    if not path.is_absolute():
        return None
    try:
        return text if path.is_dir() else None
    except OSError:
        return None


def sidecar_cwd(store_dir: Path) -> str | None:
    """The ``cwd`` string of the ``meta.json`` beside a store (unvalidated), or ``None``."""
    path = store_dir / META_JSON
    data = read_json_object(path, max_bytes=MAX_BYTES)
    cwd = data.get("cwd") if data is not None else None
    return cwd if isinstance(cwd, str) else None


def resolve(store_dir: Path, fallbacks: Iterable[str] = ()) -> str | None:
    """The first existing directory among the sidecar ``cwd`` and the payload *fallbacks*."""
    for candidate in (sidecar_cwd(store_dir), *fallbacks):
        if candidate:
            found = existing_dir(candidate)
            if found is not None:
                return os.path.normpath(found) if not found.startswith("\\\\") else found
    return None
