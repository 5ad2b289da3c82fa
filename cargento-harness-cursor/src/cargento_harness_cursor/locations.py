"""Where Cursor CLI keeps its chat stores: ``~/.cursor/chats/<workspace-hash>/<agent-id>/store.db``.

There is no relocation variable. ``<workspace-hash>`` is the MD5 of the workspace path and
``<agent-id>`` (the directory name) is the session id; the sibling ``meta.json`` holds the cwd.
"""

from __future__ import annotations

from pathlib import Path

from cargento import HarnessContext
from cargento.locations import Root, resolve_root

__all__ = ["CHATS", "DEFAULT", "VARIABLE", "chats", "root"]

#: The relocation variable; Cursor CLI has none.
VARIABLE: str | None = None
DEFAULT = ".cursor"
CHATS = "chats"


def root(ctx: HarnessContext) -> Root:
    """The ``~/.cursor`` directory for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT)


def chats(ctx: HarnessContext) -> tuple[Path, str]:
    """The chats directory and why it was chosen."""
    found = root(ctx)
    return found.path / CHATS, found.origin
