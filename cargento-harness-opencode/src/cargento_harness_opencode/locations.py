"""Where OpenCode keeps its databases on each platform."""

from __future__ import annotations

from pathlib import Path

import attrs
from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext
from cargento.readers import scan_dir
from cargento.sharedmethods import shared_methods

__all__ = ["DEFAULT", "PATTERN", "VARIABLE", "Databases", "databases", "roots"]

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


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Databases:
    """What one root holds under a database's name."""

    #: The regular ``opencode*.db`` files, to be read.
    readable: tuple[Path, ...]
    #: Entries with a database's name that are no regular file or cannot be ``stat``-ed (a
    #: named pipe, a link loop, a dangling link), never opened.
    skipped: tuple[Path, ...]
    #: One ``<path>: <cause>`` line per skipped entry (and per root that could not be listed).
    problems: tuple[str, ...]


def databases(root: Path) -> Databases:
    """The ``opencode*.db`` entries directly in *root* (never their ``-wal``/``-shm``)."""
    scan = scan_dir(root, files=PATTERN)
    return Databases(
        readable=tuple(sorted(Path(f.path) for f in scan.files)),
        skipped=tuple(sorted(Path(p) for p in scan.skipped)),
        problems=scan.problems,
    )
