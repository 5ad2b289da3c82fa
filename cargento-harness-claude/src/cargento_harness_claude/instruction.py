"""The latest instruction line: the newest operator request, or the earlier substantive one
when the newest is only a continuation such as "proceed"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from cargento.labels import clip
from cargento.models import Instruction

from cargento_harness_claude.records import clean_prompt

__all__ = ["CONTINUATIONS", "is_continuation", "latest_instruction"]

#: Prompts that carry no request of their own; they continue the previous one.
CONTINUATIONS = frozenset(
    {
        "proceed",
        "continue",
        "go on",
        "go ahead",
        "carry on",
        "keep going",
        "resume",
        "next",
        "yes",
        "y",
        "yep",
        "yeah",
        "yup",
        "ok",
        "okay",
        "k",
        "sure",
        "please",
        "do it",
        "go",
        "lgtm",
        "sounds good",
        "looks good",
        "approved",
        "agreed",
        "correct",
        "right",
        "try again",
        "retry",
        "again",
        "continue please",
        "please continue",
        "proceed please",
        "please proceed",
        "yes please",
        "yes proceed",
        "yes continue",
        "ok proceed",
        "ok continue",
        "ok go ahead",
        "yes go ahead",
        "go for it",
        "ship it",
        "done",
        "thanks",
        "thank you",
    }
)
_PUNCT = re.compile(r"[^\w\s]")
#: Built-in slash commands with no arguments are not requests either.
_BARE_COMMAND = re.compile(r"^/[\w:-]+$")
INSTRUCTION_LIMIT = 200


def is_continuation(prompt: str) -> bool:
    """True when *prompt* only continues the previous request."""
    line = clean_prompt(prompt, limit=INSTRUCTION_LIMIT)
    if _BARE_COMMAND.match(line):
        return True
    words = " ".join(_PUNCT.sub(" ", line.lower()).split())
    return not words or words in CONTINUATIONS


def latest_instruction(prompts: Sequence[tuple[str, datetime | None]]) -> Instruction | None:
    """Pick the instruction from *prompts* (oldest first, as ``(text, at)``).

    ``None`` when no prompt was seen, or when every prompt seen is a continuation (the
    request it continues is out of sight, so naming one would be a guess).
    """
    if not prompts:
        return None
    newest_text, newest_at = prompts[-1]
    if not is_continuation(newest_text):
        return Instruction(
            text=clip(clean_prompt(newest_text, INSTRUCTION_LIMIT), INSTRUCTION_LIMIT), source="prompt", at=newest_at
        )
    for body, at in reversed(prompts[:-1]):
        if not is_continuation(body):
            return Instruction(
                text=clip(clean_prompt(body, INSTRUCTION_LIMIT), INSTRUCTION_LIMIT), source="earlier prompt", at=at
            )
    return None
