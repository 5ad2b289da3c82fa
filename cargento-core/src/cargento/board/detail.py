"""The detail line under a row's title: what a session is doing, waiting on, or how long it has been quiet."""

from __future__ import annotations

from collections.abc import Sequence

from cargento.board.document import BoardTask, State
from cargento.board.state import Overlay
from cargento.models import Gate, SessionReading, Subagent

__all__ = ["GATE_WORDING", "ago", "ago_changes_at", "detail_line"]

#: What a gate without its own text is waiting for, by ``Gate.kind``.
GATE_WORDING = {
    "permission": "waiting for a permission answer",
    "question": "asking you a question",
    "plan": "waiting for plan approval",
    "command": "asking to run a command",
    "url": "asking to open a URL",
    "roster": "a teammate has not started",
}


def ago(seconds: float | None) -> str:
    """Render an age as ``just now``, ``42 s ago``, ``5 min ago``, ``3 h ago``, ``2 d ago``."""
    if seconds is None:
        return "unknown"
    s = max(0.0, seconds)
    if s < 5:
        return "just now"
    if s < 60:
        return f"{int(s)} s ago"
    if s < 3600:
        return f"{int(s // 60)} min ago"
    if s < 86400:
        return f"{int(s // 3600)} h ago"
    return f"{int(s // 86400)} d ago"


def ago_changes_at(seconds: float | None) -> float | None:
    """The smallest age above *seconds* at which :func:`ago`'s text differs from
    ``ago(seconds)`` (``None``: an unknown age, whose text never changes). A caller keeping a
    text made at one age knows how long it stands without rendering it again."""
    if seconds is None:
        return None
    s = max(0.0, seconds)
    if s < 5:
        return 5.0
    if s < 60:
        return float(int(s) + 1)
    for unit, below in ((60, 3600), (3600, 86400)):
        if s < below:
            return float((int(s // unit) + 1) * unit)
    return float((int(s // 86400) + 1) * 86400)


def detail_line(
    *,
    state: State,
    state_source: str,
    gate: Gate | None,
    overlay: Overlay | None,
    reading: SessionReading,
    tasks: Sequence[BoardTask],
    subagents: Sequence[Subagent],
    idle_for: float | None,
) -> str:
    """The row's detail line.

    Needs input: the gate's text, or what its kind waits for. Working: the overlay's detail,
    the task in progress, the running subagents, the plugin's detail, ``thinking``, the last
    tool, or ``generating…``, the first that applies. Otherwise how long ago it was active.
    """
    if state == "needs_input" and gate is not None:
        return gate.text or GATE_WORDING.get(gate.kind, "waiting on you")
    if state == "working":
        active = next((t.active_form or t.subject for t in tasks if t.status == "in_progress"), None)
        if overlay is not None and state_source != "store" and overlay.detail:
            return overlay.detail
        if active:
            return active
        running = [s for s in subagents if s.running]
        if running:
            names = ", ".join(s.name for s in running[:3])
            more = f" (+{len(running) - 3})" if len(running) > 3 else ""
            return f"running {len(running)} subagent{'s' if len(running) != 1 else ''}: {names}{more}"
        if reading.detail:
            return reading.detail
        if reading.thinking:
            return "thinking"
        if reading.last_tool:
            return reading.last_tool
        return "generating…"
    if reading.ended:
        return f"session ended · last active {ago(idle_for)}"
    return f"last active {ago(idle_for)}"
