"""Where Factory Droid keeps its store on each platform."""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE: str | None = None
DEFAULT = ".factory"
#: Session files below the root.
PATTERNS = ['sessions/*/*.jsonl', 'projects/*/*.jsonl', 'sessions/*.jsonl']


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix='')
