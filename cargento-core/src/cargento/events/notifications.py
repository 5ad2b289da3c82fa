"""What a harness notification asks of the human: the specification's precedence rules.

Claude Code's structured ``notification_type`` decides. Idle nudges (``idle_prompt``) pop
once but never mark the session blocked; informational types (authentication, completion,
computer-use status) do neither; actionable types (a permission prompt, an MCP elicitation
dialog, a worker's permission or network request) create Needs input. A type on neither list
is actionable, so a kind added upstream surfaces rather than disappearing. With no type at
all, the idle wording ("Claude is waiting for your input") marks an idle nudge and anything
else is actionable. Some types also clear a standing hook-reported gate.
"""

from __future__ import annotations

from typing import Literal

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["ACTIONABLE", "CLEARING", "IDLE", "INFORMATIONAL", "Disposition", "classify"]

IDLE = frozenset({"idle_prompt", "idle_timeout"})
INFORMATIONAL = frozenset(
    {
        "auth_success",
        "agent_completed",
        "elicitation_complete",
        "elicitation_response",
        "computer_use_enter",
        "computer_use_exit",
        "push_notification",
    }
)
ACTIONABLE = frozenset(
    {"permission_prompt", "elicitation_dialog", "agent_needs_input", "worker_permission_prompt", "ToolPermission"}
)
#: Types whose arrival says a standing prompt is over: the session went idle, an agent
#: completed, or the elicitation was answered.
CLEARING = IDLE | frozenset({"agent_completed", "elicitation_complete", "elicitation_response"})
_IDLE_WORDING = "claude is waiting for your input"

Action = Literal["idle", "informational", "actionable"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Disposition:
    """What one notification does: pop a desktop alert, mark Needs input, clear a gate."""

    action: Action
    pops: bool
    blocks: bool
    clears: bool


def classify(notification_type: str | None, message: str | None = None) -> Disposition:
    """The disposition of a notification by its type (and, without one, its wording)."""
    kind = (notification_type or "").strip()
    if not kind:
        if (message or "").strip().lower().startswith(_IDLE_WORDING):
            return Disposition(action="idle", pops=True, blocks=False, clears=True)
        return Disposition(action="actionable", pops=True, blocks=True, clears=False)
    if kind in IDLE:
        return Disposition(action="idle", pops=True, blocks=False, clears=True)
    if kind in INFORMATIONAL:
        return Disposition(action="informational", pops=False, blocks=False, clears=kind in CLEARING)
    return Disposition(action="actionable", pops=True, blocks=True, clears=False)
