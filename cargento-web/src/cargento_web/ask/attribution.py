"""Which session is asking: what the harness hands the stdio MCP server it starts.

A harness starts ``cargento-ask`` as a child process; the only thing the asking server can
know about its caller is what that harness put in the child's environment. Only variables a
harness is documented (or shown in its own source) to pass are read, and a question whose
session cannot be named that way is sent unattributed: the dashboard shows it as such and
never matches it to a row by guesswork. What each harness passes (checked 2026-12):

==============  ==========================================================================
Claude Code     ``CLAUDE_CODE_SESSION_ID`` (the session's id, the transcript's name) and
                ``CLAUDE_PROJECT_DIR`` (the project directory): attributed.
Goose           ``AGENT_SESSION_ID`` in every stdio extension's environment (goose PR
                #7072), an id of the form ``YYYYMMDD_N``: attributed when it has that form.
Codex           ``CODEX_THREAD_ID`` reaches shell tool runs but not stdio MCP servers
                (openai/codex#19937, open): unattributed.
Gemini CLI      ``GEMINI_CLI=1`` marks the host (gemini-cli PR #18832) but names no session:
                unattributed.
Copilot CLI     no session variable; not even a stable host marker (github/copilot-cli
                #2107, open): unattributed.
OpenCode        no session identifier for MCP servers (anomalyco/opencode#6279): unattributed.
Cursor CLI      none documented: unattributed.
Factory Droid   none documented: unattributed.
Antigravity     none documented: unattributed.
==============  ==========================================================================

An operator can name the session by hand in the server's ``env`` block with
``CARGENTO_ASK_HARNESS`` and ``CARGENTO_ASK_SESSION_ID`` (both or neither).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

__all__ = ["Attribution", "attribute"]

_GOOSE_ID = re.compile(r"^\d{8}_\d+$")
_HARNESS = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
_LIMIT = 256


@attrs.frozen(kw_only=True)
class Attribution:
    harness: str | None = None
    session_id: str | None = None
    project: str | None = None
    #: Which variable named the session (for the server's log and the tests).
    source: str | None = None


def _value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value if value and len(value) <= _LIMIT and value.isprintable() else None


def attribute(env: Mapping[str, str]) -> Attribution:
    """The asking session as the environment names it, or an unattributed one."""
    harness, sid = _value(env, "CARGENTO_ASK_HARNESS"), _value(env, "CARGENTO_ASK_SESSION_ID")
    if harness and sid and _HARNESS.match(harness):
        return Attribution(harness=harness, session_id=sid, source="CARGENTO_ASK_SESSION_ID")
    claude = _value(env, "CLAUDE_CODE_SESSION_ID")
    if claude:
        project = env.get("CLAUDE_PROJECT_DIR", "").strip() or None
        return Attribution(
            harness="claude",
            session_id=claude,
            project=project if project and len(project) <= 1024 else None,
            source="CLAUDE_CODE_SESSION_ID",
        )
    goose = _value(env, "AGENT_SESSION_ID")
    if goose and _GOOSE_ID.match(goose):
        return Attribution(harness="goose", session_id=goose, source="AGENT_SESSION_ID")
    return Attribution()
