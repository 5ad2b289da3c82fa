"""Where harness stores live: per-platform defaults and authoritative relocation variables.

Every plugin resolves its roots through :func:`resolve_root` so that the rule is the same
everywhere: when the relocation variable is set it is authoritative, with no fallback to the
default location; otherwise the platform default applies.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

import attrs

from cargento.models import HarnessContext, StoreLocation
from cargento.readers.regular import open_regular, why
from cargento.readers.sqlite import database_problem
from cargento.sharedmethods import shared_methods

__all__ = [
    "RELOCATION_VARIABLES",
    "Root",
    "data_dir",
    "describe",
    "resolve_root",
]

#: Deprecated (0.1; removed in 0.3): the relocation variables of the first-party harnesses as
#: the specification named them. ``--demo`` and ``--diagnose`` no longer read this list: each
#: plugin declares its own in :attr:`cargento.models.HarnessInfo.relocation_variables`, and
#: :meth:`cargento.plugins.Registry.relocation_variables` is their union.
RELOCATION_VARIABLES = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Root:
    """A resolved store root and why it was chosen."""

    path: Path
    origin: str


def _expand(value: str, home: Path) -> Path:
    if value == "~" or value.startswith(("~/", "~\\")):
        return home / value[2:]
    return Path(value)


def resolve_root(
    ctx: HarnessContext,
    *,
    variable: str | None,
    default: Mapping[str, str] | str,
    suffix: str = "",
) -> Root:
    """Resolve a store root.

    :param variable: the relocation variable; when set and non-empty it wins outright.
    :param default: the default path relative to the home directory, either one string for
        every platform or a mapping from ``linux``/``darwin``/``win32`` to a string. A
        mapping value may start with ``$XDG_DATA_HOME``/``$APPDATA``/``$LOCALAPPDATA`` and
        those are resolved from ``ctx.env`` with their platform defaults.
    :param suffix: appended below the relocated directory (Gemini puts ``.gemini`` inside
        ``GEMINI_CLI_HOME``).
    """
    if variable:
        value = ctx.env.get(variable, "").strip()
        if value:
            path = _expand(value, ctx.home)
            return Root(path=path / suffix if suffix else path, origin=f"env {variable}")
    rel = default if isinstance(default, str) else default.get(ctx.platform, default.get("linux", ""))
    return Root(path=_base_path(rel, ctx), origin="default")


#: Each base a default may start with: its variable, and its default below the home directory.
_BASES = (
    ("$XDG_DATA_HOME", "XDG_DATA_HOME", (".local", "share")),
    ("$XDG_CONFIG_HOME", "XDG_CONFIG_HOME", (".config",)),
    ("$APPDATA", "APPDATA", ("AppData", "Roaming")),
    ("$LOCALAPPDATA", "LOCALAPPDATA", ("AppData", "Local")),
)


def _base_path(rel: str, ctx: HarnessContext) -> Path:
    # Plugins resolve their root on every session they read: only the base *rel* names is
    # looked up (and joined), not all four.
    home = ctx.home
    if rel.startswith("$"):
        for marker, variable, below in _BASES:
            if rel.startswith(marker):
                base = Path(ctx.env.get(variable) or str(home.joinpath(*below)))
                rest = rel[len(marker) :].lstrip("/\\")
                return base / rest if rest else base
    return home / rel


def data_dir(ctx: HarnessContext, app: str) -> Path:
    """The platform's per-user data directory for *app* (XDG on Linux)."""
    if ctx.platform == "darwin":
        return ctx.home / "Library" / "Application Support" / app
    if ctx.platform == "win32":
        return _base_path("$LOCALAPPDATA", ctx) / app
    return _base_path("$XDG_DATA_HOME", ctx) / app


def describe(path: Path, *, role: str = "sessions", origin: str = "default") -> StoreLocation:
    """Report what is at *path* without writing anything: missing, unreadable or present.

    Readability is tried rather than read from permission bits: a folder is opened (and must
    be searchable), a file is opened (regular files only, without blocking) and, for the
    ``database`` role, its header must be SQLite's. ``detail`` names the cause of an
    unreadable path (``permission denied``, ``symlink loop``, ``not a regular file (named
    pipe)``, ``not an SQLite database``...).
    """

    def lost(cause: str) -> StoreLocation:
        return StoreLocation(path=str(path), role=role, origin=origin, status="unreadable", detail=cause)

    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return lost("dangling symlink")
        return StoreLocation(path=str(path), role=role, origin=origin, status="missing")
    except OSError as exc:
        return lost(why(exc))
    if stat.S_ISDIR(st.st_mode):
        # Opened, not listed: a listing per refresh would cost what the watcher saves.
        try:
            os.close(os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)))
        except OSError as exc:
            return lost(why(exc))
        if not os.access(path, os.X_OK):
            return lost("permission denied")
    else:
        try:
            with open_regular(path):
                pass
        except OSError as exc:
            return lost(why(exc))
        if role == "database":
            problem = database_problem(path)
            if problem is not None:
                return lost(problem)
    return StoreLocation(path=str(path), role=role, origin=origin, status="present")
