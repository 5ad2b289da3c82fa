"""What a reach nudge says, and its body in each shape.

A nudge names the harness, the session's title (its short id when it has none) and the kind
of wait, and nothing else: never the prompt, the command, the gate's text or a path. The
title is redacted like everything else that leaves the machine.
"""

from __future__ import annotations

import attrs
import orjson
from cargento.labels import clip
from cargento.redact import redact
from cargento.sharedmethods import shared_methods

from cargento_web.reach.target import ReachTarget

__all__ = ["KIND_WORDS", "Nudge", "compose", "encode"]

#: The kind of wait, as the nudge says it.
KIND_WORDS = {
    "gate": "needs input",
    "question": "asks you a question",
    "finished": "finished its turn",
    "idle": "finished its turn and is waiting for you",
}
_PRIORITY = {"gate": "high", "question": "high", "finished": "default", "idle": "default"}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Nudge:
    title: str
    text: str
    priority: str


def compose(kind: str, harness_label: str, session_title: str) -> Nudge:
    words = KIND_WORDS.get(kind, "needs you")
    name = clip(redact(session_title), 80)
    harness = clip(redact(harness_label), 40)
    return Nudge(
        title=f"Cargento: {harness} {words}",
        text=f"{harness} · {name} {words}",
        priority=_PRIORITY.get(kind, "default"),
    )


def encode(target: ReachTarget, nudge: Nudge) -> tuple[bytes, dict[str, str]]:
    """The request body and headers for *target*'s shape."""
    if target.shape == "ntfy":
        # Header values must be Latin-1 on the wire; ntfy reads RFC 2047 for anything else,
        # so the title goes as UTF-8 in that encoding when it needs it.
        title = nudge.title
        try:
            title.encode("latin-1")
        except UnicodeEncodeError:
            import base64

            title = "=?UTF-8?B?" + base64.b64encode(title.encode()).decode() + "?="
        return nudge.text.encode(), {
            "Content-Type": "text/plain; charset=utf-8",
            "Title": title,
            "Priority": nudge.priority,
            "Tags": "cargento",
        }
    return orjson.dumps({"text": f"{nudge.title}\n{nudge.text}"}), {"Content-Type": "application/json"}
