"""Where Gemini CLI keeps its store.

``$GEMINI_CLI_HOME/.gemini`` when ``GEMINI_CLI_HOME`` is set (the CLI creates ``.gemini`` inside
it; authoritative, no fallback), else ``~/.gemini`` on every platform. Chats live in
``tmp/<project>/chats/``: main sessions as ``session-<time>-<first 8 of id>.jsonl``, subagent
recordings as ``<parent session id>/<session id>.jsonl`` beside them. ``projects.json`` maps a
working directory to its ``<project>`` folder name.
"""

from __future__ import annotations

from pathlib import Path

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

__all__ = ["DEFAULT", "MAIN_PATTERN", "SUBAGENT_PATTERN", "VARIABLE", "chats_dir", "root"]

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE = "GEMINI_CLI_HOME"
DEFAULT = ".gemini"
#: Main sessions below the root. Legacy single ``session-*.json`` files are not parsed.
MAIN_PATTERN = "tmp/*/chats/session-*.jsonl"
#: Subagent recordings below the root, in a folder named after the parent session.
SUBAGENT_PATTERN = "tmp/*/chats/*/*.jsonl"


def root(ctx: HarnessContext) -> Root:
    """The ``.gemini`` directory for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix=".gemini")


def chats_dir(path: Path) -> Path:
    """The ``chats`` folder a main or subagent chat file belongs to."""
    return path.parent if path.parent.name == "chats" else path.parent.parent
