"""Where OpenCode keeps its databases on each platform."""

from __future__ import annotations

from pathlib import Path

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext
from cargento.readers import scan_dir

__all__ = ["DEFAULT", "PATTERN", "VARIABLE", "databases", "roots"]

#: OpenCode has no relocation variable of its own; it follows XDG.
VARIABLE: str | None = None
DEFAULT = {
    "linux": "$XDG_DATA_HOME/opencode",
    "darwin": "$XDG_DATA_HOME/opencode",
    "win32": "$LOCALAPPDATA/opencode/data",
}
#: Database files in a root (channel builds use suffixed names such as ``opencode-dev.db``).
PATTERN = "opencode*.db"


def roots(ctx: HarnessContext) -> list[Root]:
    """Every root searched, the platform default first."""
    first = resolve_root(ctx, variable=VARIABLE, default=DEFAULT)
    found = [first]
    if ctx.platform == "win32":
        for rel in ("$LOCALAPPDATA/opencode", ".local/share/opencode"):
            extra = resolve_root(ctx, variable=None, default=rel)
            if extra.path not in [r.path for r in found]:
                found.append(extra)
    return found


def databases(root: Path) -> list[Path]:
    """The ``opencode*.db`` files directly in *root* (never their ``-wal``/``-shm``)."""
    # A pipe or link loop with a database's name is passed on too, so describe() names it.
    scan = scan_dir(root, files=PATTERN)
    return sorted([Path(f.path) for f in scan.files] + [Path(p) for p in scan.skipped])
