"""Where OpenCode keeps its store on each platform."""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE: str | None = None
DEFAULT = {"linux": "$XDG_DATA_HOME/opencode", "darwin": "$XDG_DATA_HOME/opencode", "win32": "$XDG_DATA_HOME/opencode"}
#: Session files below the root.
PATTERNS = ['opencode*.db']


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix='')
