"""Where Goose keeps its session database on each platform.

Goose resolves its data directory with the ``etcetera`` crate's ``choose_app_strategy`` for the
app ``goose`` by author ``Block``: the XDG strategy everywhere but Windows (so macOS too uses
``~/.local/share/goose``, and ``$XDG_DATA_HOME`` when it is an absolute path), and on Windows
``%APPDATA%\\Block\\goose\\data``. The ``LOCALAPPDATA`` spelling is searched as well. The
shared database (Goose v1.10.0+) is ``sessions/sessions.db`` below it. ``GOOSE_PATH_ROOT`` and
the legacy per-session ``.jsonl`` files are not supported (the specification excludes them).
"""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

import attrs
from cargento import HarnessContext
from cargento.sharedmethods import shared_methods

__all__ = ["DATABASE", "Root", "roots"]

#: The shared session database below a data directory.
DATABASE = ("sessions", "sessions.db")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Root:
    """One candidate data directory and why it was chosen."""

    path: Path
    origin: str

    @property
    def database(self) -> Path:
        return self.path.joinpath(*DATABASE)


def _absolute(value: str) -> bool:
    return value.startswith("/") or PureWindowsPath(value).is_absolute()


def roots(ctx: HarnessContext) -> tuple[Root, ...]:
    """Every Goose data directory to search on this platform, in order."""
    if ctx.platform == "win32":
        out = []
        appdata = ctx.env.get("APPDATA", "").strip()
        base = Path(appdata) if appdata else ctx.home / "AppData" / "Roaming"
        out.append(Root(path=base / "Block" / "goose" / "data", origin="env APPDATA" if appdata else "default"))
        local = ctx.env.get("LOCALAPPDATA", "").strip()
        lbase = Path(local) if local else ctx.home / "AppData" / "Local"
        out.append(Root(path=lbase / "Block" / "goose" / "data", origin="env LOCALAPPDATA" if local else "default"))
        return tuple(out)
    xdg = ctx.env.get("XDG_DATA_HOME", "").strip()
    if xdg and _absolute(xdg):
        return (Root(path=Path(xdg) / "goose", origin="env XDG_DATA_HOME"),)
    return (Root(path=ctx.home / ".local" / "share" / "goose", origin="default"),)
