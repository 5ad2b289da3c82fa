"""How far the terminal raise reached: one sentence for Attention's coverage details."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

__all__ = ["REASON_WORDS", "coverage_sentence"]

#: Why a session carries no raise control, as the coverage line says it.
REASON_WORDS = {
    "no-terminal": "sent no lifecycle event from inside tmux",
    "started-before": "started before this dashboard did",
    "no-tmux": "ran in tmux, but tmux is not on this dashboard's PATH",
    "no-server": "ran under a tmux server that is gone",
    "other-server": "ran under a tmux server that has since been replaced",
    "pane-gone": "ran in a tmux pane that is gone",
    "no-client": "have no terminal attached",
    "clients": "have more than one terminal attached",
}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def coverage_sentence(total: int, reasons: Mapping[str, str], *, tabs: str | None = None) -> str:
    """*reasons* is each session's ``ok`` or why not; sessions absent from it sent nothing.
    *tabs* says how far a raise reaches past tmux (the macOS terminal tab, or tmux only)."""
    reachable = sum(1 for r in reasons.values() if r == "ok")
    counts = Counter(r for r in reasons.values() if r != "ok")
    silent = total - len(reasons)
    if silent > 0:
        counts["no-terminal"] += silent
    head = (
        f"Terminal raise: {reachable} of {_plural(total, 'session', 'sessions')} on this board can be raised "
        "(a tmux pane, a session started while this dashboard has been up, exactly one terminal attached)."
    )
    if tabs:
        head = f"{head} A raise selects the session's tmux window and pane; {tabs}."
    if not counts:
        return head
    rest = "; ".join(f"{n} {REASON_WORDS.get(reason, reason)}" for reason, n in counts.most_common())
    return f"{head} The others carry no control: {rest}."
