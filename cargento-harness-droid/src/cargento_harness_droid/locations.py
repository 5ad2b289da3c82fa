"""Where Factory Droid keeps its sessions.

Droid 0.202.0 writes ``~/.factory/sessions/<slugified-cwd>/<session-id>.jsonl``; older builds wrote
``~/.factory/projects/<project>/<session-id>.jsonl`` and, earlier still, flat
``~/.factory/sessions/<session-id>.jsonl``. All three are searched. Droid documents no relocation
variable, so the root is always below the home directory. The sibling
``<session-id>.settings.json`` is never read.
"""

from __future__ import annotations

from pathlib import Path

import attrs
from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

__all__ = ["DEFAULT", "Layout", "layouts", "root"]

DEFAULT = ".factory"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Layout:
    """One session folder layout: its directory, the glob below it, and its role name."""

    path: Path
    pattern: str
    role: str


def root(ctx: HarnessContext) -> Root:
    """The ``.factory`` directory for this run."""
    return resolve_root(ctx, variable=None, default=DEFAULT)


def layouts(base: Path) -> tuple[Layout, ...]:
    """The session layouts under *base*, newest first."""
    return (
        Layout(base / "sessions", "*/*.jsonl", "sessions"),
        Layout(base / "projects", "*/*.jsonl", "sessions (projects, older builds)"),
        Layout(base / "sessions", "*.jsonl", "sessions (flat, older builds)"),
    )
