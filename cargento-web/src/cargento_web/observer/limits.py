"""The bounds of one model call that the page is told at start.

They live here, apart from :mod:`.prompt` and :mod:`.runner` that apply them, so the start
(the page's configuration, each reading's disclosure) reads them without importing the
modules that build a prompt or run a CLI: those are imported by the first call.
"""

from __future__ import annotations

__all__ = ["PROMPT_LIMIT", "TIMEOUT_S"]

#: The most bytes of one prompt sent to a reader (:mod:`.prompt`).
PROMPT_LIMIT = 16_384
#: How long one call may take (:mod:`.runner`).
TIMEOUT_S = 60.0
