"""Where Goose keeps its store on each platform."""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE: str | None = None
DEFAULT = {"linux": "$XDG_DATA_HOME/goose", "darwin": "Library/Application Support/Block/goose", "win32": "$APPDATA/Block/goose/data"}
#: Session files below the root.
PATTERNS = ['sessions/sessions.db']


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix='')
