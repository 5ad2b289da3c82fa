"""Which session is asking: what the harness hands the stdio MCP server it starts.

A harness starts ``cargento-ask`` as a child process; the only thing the asking server can
know about its caller is what that harness put in the child's environment. Each harness
plugin declares what that is (:attr:`cargento.models.HarnessInfo.mcp_session`: the variable
holding the session id, a pattern its value must match, the project directory's variable), and
only those declarations are read. A question whose session cannot be named that way is sent
unattributed: the dashboard shows it as such and never matches it to a row by guesswork.
What each harness passes is tabled in ``docs/ask.md``.

An operator can name the session by hand in the server's ``env`` block with
``CARGENTO_ASK_HARNESS`` and ``CARGENTO_ASK_SESSION_ID`` (both or neither).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import attrs
from cargento.models import HarnessInfo
from cargento.sharedmethods import shared_methods

__all__ = ["Attribution", "attribute", "declared_infos"]

_HARNESS = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
_LIMIT = 256
_PROJECT_LIMIT = 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Attribution:
    harness: str | None = None
    session_id: str | None = None
    project: str | None = None
    #: Which variable named the session (for the server's log and the tests).
    source: str | None = None


def _value(env: Mapping[str, str], name: str, limit: int = _LIMIT) -> str | None:
    value = env.get(name, "").strip()
    return value if value and len(value) <= limit and value.isprintable() else None


def declared_infos() -> list[HarnessInfo]:
    """Every installed harness plugin's :class:`HarnessInfo` (loaded through the registry)."""
    from cargento.plugins import load_registry

    registry = load_registry()
    return [registry.harnesses[key] for key in sorted(registry.harnesses)]


def attribute(env: Mapping[str, str], infos: Iterable[HarnessInfo]) -> Attribution:
    """The asking session as the environment names it, or an unattributed one.

    The hand-named pair wins; then the first harness (in key order) whose declared variable
    is set to a value of its declared form. Two harnesses that both match name no one: the
    question is unattributed rather than given to either.
    """
    harness, sid = _value(env, "CARGENTO_ASK_HARNESS"), _value(env, "CARGENTO_ASK_SESSION_ID")
    if harness and sid and _HARNESS.match(harness):
        return Attribution(harness=harness, session_id=sid, source="CARGENTO_ASK_SESSION_ID")
    found: list[Attribution] = []
    for info in infos:
        declared = info.mcp_session
        if declared is None:
            continue
        value = _value(env, declared.variable)
        if value is None or (declared.pattern is not None and not re.fullmatch(declared.pattern, value)):
            continue
        project = _value(env, declared.project_variable, _PROJECT_LIMIT) if declared.project_variable else None
        found.append(Attribution(harness=info.key, session_id=value, project=project, source=declared.variable))
    return found[0] if len(found) == 1 else Attribution()
