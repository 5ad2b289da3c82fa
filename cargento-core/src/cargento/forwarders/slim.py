"""What of a hook payload a forwarder sends: only the fields the dashboard reads.

A hook payload can carry a whole tool response, the assistant's last message, or the text the
person typed; none of it is needed to tell Working from Idle. The forwarders send the named
fields below, clip long strings, and keep from ``tool_input`` only what pairs a permission
with its tool run, the question or plan first line a gate shows, and a shell command for the
irreversible-shape matcher (bounded).
"""

from __future__ import annotations

# The same class as ``collections.abc.Mapping``, from the module the interpreter loads at start:
# ``collections.abc`` imports all of :mod:`collections`, which a forwarder has no other use for.
from _collections_abc import Mapping

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["TERMINAL_FIELD", "slim_hook_payload", "slim_status_line", "terminal_identity"]

#: The body field a forwarder adds with the terminal its hook ran in (from its environment).
TERMINAL_FIELD = "cargento_terminal"

_SCALARS = (
    "session_id",
    "hook_event_name",
    "prompt_id",
    "turn_id",
    "agent_id",
    "agent_type",
    "tool_name",
    "source",
    "reason",
    "notification_type",
    "message",
    "title",
    "trigger",
    "timestamp",
    "permission_mode",
)
_TOOL_KEYS = ("command", "file_path", "path", "url", "pattern")
STRING_LIMIT = 512
COMMAND_LIMIT = 8192


def _clip(value: Any, limit: int = STRING_LIMIT) -> Any:
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return None


def _tool_input(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, Mapping):
        return None
    out: dict[str, Any] = {}
    for key in _TOOL_KEYS:
        item = value.get(key)
        if isinstance(item, str):
            out[key] = item[: COMMAND_LIMIT if key == "command" else STRING_LIMIT]
        elif key == "command" and isinstance(item, list) and all(isinstance(x, str) for x in item):
            out[key] = " ".join(item)[:COMMAND_LIMIT]
    questions = value.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[0], Mapping):
        question = questions[0].get("question")
        if isinstance(question, str):
            out["questions"] = [{"question": question[:STRING_LIMIT]}]
    plan = value.get("plan")
    if isinstance(plan, str):
        out["plan"] = plan[:2000]
    return out


def slim_hook_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a hook payload the event lane reads (unknown fields dropped)."""
    out: dict[str, Any] = {}
    for key in _SCALARS:
        if key in payload:
            value = _clip(payload[key])
            if value is not None:
                out[key] = value
    tool_input = _tool_input(payload.get("tool_input"))
    if tool_input:
        out["tool_input"] = tool_input
    details = payload.get("details")
    if isinstance(details, Mapping) and isinstance(details.get("type"), str):
        # Gemini's ToolPermission notification: only the kind of request, never the command.
        out["details"] = {"type": details["type"][:32]}
    # The OpenCode plugin / Pi extension shapes.
    for key in ("event", "request_id", "prompt_kind"):
        if isinstance(payload.get(key), str):
            out[key] = payload[key][:STRING_LIMIT]
    return out


def terminal_identity(env: Mapping[str, str]) -> dict[str, str] | None:
    """The tmux pane the hook runs in (``TMUX``, ``TMUX_PANE`` of its environment, inherited
    from the harness), for the dashboard's terminal raise; ``None`` outside tmux. The
    dashboard keeps it only when the terminal raise is on for its run."""
    tmux, pane = env.get("TMUX", ""), env.get("TMUX_PANE", "")
    if not tmux or not pane or len(tmux) > 1100 or len(pane) > 16:
        return None
    return {"tmux": tmux, "pane": pane}


def slim_status_line(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Antigravity's status-line push reduced to its lifecycle state and the quota block:
    never the account email, the transcript path or the working directory."""
    out: dict[str, Any] = {"hook_event_name": "StatusLine"}
    for key in ("agent_state", "conversation_id", "session_id"):
        value = payload.get(key)
        if isinstance(value, str) and value:
            out[key] = value[:128]
    quota = payload.get("quota")
    if isinstance(quota, Mapping):
        block: dict[str, Any] = {}
        for name, bucket in list(quota.items())[:16]:
            if isinstance(name, str) and isinstance(bucket, Mapping):
                block[name[:64]] = {
                    k: bucket[k]
                    for k in ("remaining_fraction", "reset_time")
                    if isinstance(bucket.get(k), str | int | float)
                }
        if block:
            out["quota"] = block
    return out
