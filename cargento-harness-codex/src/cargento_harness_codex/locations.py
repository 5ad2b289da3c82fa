"""Where Codex keeps its store: ``$CODEX_HOME`` when set (authoritative), else ``~/.codex``."""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

__all__ = ["DEFAULT", "PATTERNS", "SESSIONS", "VARIABLE", "root"]

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE = "CODEX_HOME"
DEFAULT = ".codex"
#: The rollout directory below the root.
SESSIONS = "sessions"
#: Rollout files below the sessions directory (``YYYY/MM/DD/rollout-<time>-<id>.jsonl``).
PATTERNS = ("*/*/*/rollout-*.jsonl",)


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT)
