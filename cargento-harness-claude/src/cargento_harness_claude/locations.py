"""Where Claude Code keeps its store, and the folders inside it."""

from __future__ import annotations

from pathlib import Path

import attrs
from cargento.locations import resolve_root
from cargento.models import HarnessContext
from cargento.sharedmethods import shared_methods

__all__ = ["DEFAULT", "VARIABLE", "Store", "project_fallback", "store"]

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE = "CLAUDE_CONFIG_DIR"
#: The default root below the home directory, the same on every platform.
DEFAULT = ".claude"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Store:
    """The resolved Claude Code root and the folders this plugin reads below it."""

    root: Path
    #: ``default`` or ``env CLAUDE_CONFIG_DIR``.
    origin: str

    @property
    def projects(self) -> Path:
        """``projects/<encoded cwd>/<session>.jsonl`` transcripts."""
        return self.root / "projects"

    @property
    def tasks(self) -> Path:
        """``tasks/<session>/<n>.json`` task files."""
        return self.root / "tasks"

    @property
    def teams(self) -> Path:
        """``teams/<team>/config.json`` rosters."""
        return self.root / "teams"

    @property
    def sessions(self) -> Path:
        """``sessions/<pid>.json`` files a running process keeps (2.1.3xx)."""
        return self.root / "sessions"


def store(ctx: HarnessContext) -> Store:
    """The store for this run: ``$CLAUDE_CONFIG_DIR`` when set, else ``~/.claude``."""
    found = resolve_root(ctx, variable=VARIABLE, default=DEFAULT)
    return Store(root=found.path, origin=found.origin)


def _encode(path: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in path)


def project_fallback(project_dir: str | None, home: Path) -> str | None:
    """A label from the encoded project folder name when no cwd is known.

    The encoding (every character but ASCII letters and digits replaced by ``-``) cannot be split back into
    path segments, so the name is kept whole, minus the encoded home prefix.
    """
    if not project_dir:
        return None
    encoded_home = _encode(str(home)).rstrip("-")
    if encoded_home and project_dir.startswith(encoded_home + "-"):
        rest = project_dir[len(encoded_home) + 1 :]
        return rest or None
    return project_dir.lstrip("-") or None
