"""Which installed CLI reads which harness: the route the server names.

A reading runs a command-line program already installed on this machine, non-interactively,
with no tools, in a read-only mode, from an empty scratch folder, with the prompt on standard
input. The programs and their exact command lines are the harness plugins' own declarations
(the ``reading_provider`` hook; ``docs/readings.md`` prints the same lines so a user can audit
what runs). A *route* names, per harness, the provider that would run now (the first of its
preference, :meth:`.harnesses.Declared.preference`, found on ``PATH``) or, when none is found,
the reason that stands where the control would be.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence

import attrs
from cargento.models import ReadingProvider
from cargento.sharedmethods import shared_methods

__all__ = ["Route", "route_for"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Route:
    """Which provider would read *harness* on this machine now, or why none can."""

    harness: str
    #: The provider's key (``None`` when none is installed).
    provider: str | None
    #: The provider itself, as its plugin declared it.
    reader: ReadingProvider | None = None
    #: The executable found on PATH (``None`` when no provider is installed).
    path: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        found = self.reader
        return {
            "harness": self.harness,
            "provider": self.provider,
            "label": found.label if found else None,
            "destination": found.destination if found else None,
            "command": found.command_line() if found else None,
            "reason": self.reason,
        }


def route_for(harness: str, env: Mapping[str, str], preference: Sequence[ReadingProvider]) -> Route:
    """The route for *harness*: the first of *preference* whose executable is on ``PATH``."""
    search = env.get("PATH")
    for provider in preference:
        found = shutil.which(provider.executable, path=search)
        if found:
            return Route(harness=harness, provider=provider.key, reader=provider, path=found)
    if not preference:
        reason = "No reader is installed on this machine: no harness plugin declares a CLI that can read a session."
    else:
        names = " nor ".join(f"the {p.label} ({p.executable})" for p in preference)
        found_not = "neither " + names + " was found" if len(preference) > 1 else names + " was not found"
        reason = f"No reader is installed on this machine: {found_not} on PATH."
    return Route(harness=harness, provider=None, reason=reason)
