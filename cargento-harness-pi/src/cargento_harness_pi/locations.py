"""Where Pi keeps its sessions, by Pi's own precedence.

1. ``$PI_CODING_AGENT_SESSION_DIR``: a direct session store, authoritative when set;
2. else ``sessionDir`` from ``<config>/settings.json`` (``~`` expanded, relative to the config);
3. else ``<config>/sessions``;

where the config root is ``$PI_CODING_AGENT_DIR`` (authoritative when set) or ``~/.pi/agent``.
"""

from __future__ import annotations

from pathlib import Path

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext
from cargento.readers import read_json_object

__all__ = ["CONFIG_DEFAULT", "CONFIG_VARIABLE", "PATTERNS", "SESSION_VARIABLE", "config_root", "root"]

SESSION_VARIABLE = "PI_CODING_AGENT_SESSION_DIR"
CONFIG_VARIABLE = "PI_CODING_AGENT_DIR"
CONFIG_DEFAULT = ".pi/agent"
#: Session files: flat stores hold them directly, the default store one folder per cwd.
PATTERNS = ("*.jsonl", "*/*.jsonl")
_SETTINGS_BYTES = 256 * 1024


def config_root(ctx: HarnessContext) -> Root:
    """Pi's configuration directory for this run."""
    return resolve_root(ctx, variable=CONFIG_VARIABLE, default=CONFIG_DEFAULT)


def _setting(config: Path) -> str | None:
    value = read_json_object(config / "settings.json", max_bytes=_SETTINGS_BYTES)
    if value is None:
        return None
    folder = value.get("sessionDir")
    return folder.strip() if isinstance(folder, str) and folder.strip() else None


def root(ctx: HarnessContext) -> Root:
    """The session store for this run and why it was chosen."""
    direct = ctx.env.get(SESSION_VARIABLE, "").strip()
    if direct:
        return resolve_root(ctx, variable=SESSION_VARIABLE, default=CONFIG_DEFAULT)
    config = config_root(ctx)
    folder = _setting(config.path)
    if folder is not None:
        if folder == "~" or folder.startswith(("~/", "~\\")):
            path = ctx.home / folder[2:]
        else:
            path = Path(folder)
            if not path.is_absolute():
                path = config.path / path
        return Root(path=path, origin="setting sessionDir")
    return Root(path=config.path / "sessions", origin=config.origin)
