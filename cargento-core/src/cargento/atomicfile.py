"""Replacing a file in one step, so a reader sees the old content or the new, never half of it.

Every file Cargento writes for itself or for a harness (the state file, the server's stores,
settings files the hook installer edits, forwarder memos) goes through :func:`write_atomic`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["temporary_prefix", "write_atomic"]


def temporary_prefix(name: str) -> str:
    """The prefix of a temporary file written beside *name*: ``.<name>.<pid>.``. It names the
    writing process, so a later start can tell a killed writer's leftover from a live writer's
    file in progress (:func:`cargento.statedir.remove_stale_temporaries`)."""
    return f".{name}.{os.getpid()}."


def write_atomic(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    """Replace *path* with *data* (a ``str`` is written as UTF-8), creating its directory.

    The data goes to a temporary file in *path*'s directory (``.<name>.<pid>.<random>.tmp``, so the
    rename never crosses a file system), is flushed and, when *durable*, synced to disk, then
    renamed over *path* with :func:`os.replace`. On any failure the temporary file is removed,
    *path* keeps its old content and the error is raised. The new file is readable by its owner
    only (``0600``), as the temporary file was created.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here, not at the top: the hook forwarders import this module and never write

    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path.name), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
