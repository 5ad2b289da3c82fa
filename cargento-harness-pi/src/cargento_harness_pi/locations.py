"""Where Pi keeps its store on each platform."""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE: str | None = "PI_CODING_AGENT_DIR"
DEFAULT = ".pi/agent"
#: Session files below the root.
PATTERNS = ['sessions/*/*.jsonl', 'sessions/*.jsonl']


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix='')
