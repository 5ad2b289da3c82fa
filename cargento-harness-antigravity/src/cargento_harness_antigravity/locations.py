"""Where Antigravity CLI keeps its store.

``<gemini home>/antigravity-cli/``: ``$GEMINI_CLI_HOME/.gemini/antigravity-cli`` when
``GEMINI_CLI_HOME`` is set (it relocates this store with Gemini CLI's; authoritative, no
fallback), else ``~/.gemini/antigravity-cli``. One SQLite database per conversation under
``conversations/``, the workspace cache under ``cache/`` and the CLI logs under ``log/``.
"""

from __future__ import annotations

from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext

__all__ = ["DEFAULT", "PATTERN", "VARIABLE", "root"]

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE = "GEMINI_CLI_HOME"
DEFAULT = ".gemini/antigravity-cli"
#: Conversation databases below the root.
PATTERN = "conversations/*.db"


def root(ctx: HarnessContext) -> Root:
    """The ``antigravity-cli`` directory for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix=".gemini/antigravity-cli")
