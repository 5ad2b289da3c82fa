"""Which installed CLI reads which harness: the providers and the route the server names.

A reading runs one of two command-line programs already installed on this machine, each
non-interactively, with no tools, in a read-only sandbox, from an empty scratch folder, with the
prompt on standard input. :data:`PROVIDERS` holds their exact command lines (``docs/readings.md``
prints the same lines so a user can audit what runs). A *route* names, per harness, the provider
that would run now (the first of its preference list found on ``PATH``) or, when none is found,
the reason that stands where the control would be.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping

import attrs

__all__ = ["PROVIDERS", "Provider", "Route", "route_for"]


@attrs.frozen(kw_only=True)
class Provider:
    """One installed CLI a reading can run."""

    key: str
    label: str
    executable: str
    #: The arguments after the executable; the prompt arrives on standard input.
    arguments: tuple[str, ...]
    #: Where the text it reads goes, as the disclosure beside the button names it.
    destination: str

    def command(self, path: str) -> list[str]:
        return [path, *self.arguments]

    def command_line(self) -> str:
        """The command as a user would type it (for the disclosure and the docs)."""
        return " ".join([self.executable, *(f"'{a}'" if a == "" or " " in a else a for a in self.arguments)])


PROVIDERS: Mapping[str, Provider] = {
    "codex": Provider(
        key="codex",
        label="Codex CLI",
        executable="codex",
        arguments=(
            "exec",
            "--sandbox",
            "read-only",
            "--skip-git-repo-check",
            "--ephemeral",
            "--color",
            "never",
            "-",
        ),
        destination="OpenAI, through the Codex CLI signed in on this machine",
    ),
    "claude": Provider(
        key="claude",
        label="Claude Code CLI",
        executable="claude",
        arguments=(
            "-p",
            "--output-format",
            "text",
            "--tools",
            "",
            "--permission-mode",
            "plan",
            "--strict-mcp-config",
            "--no-session-persistence",
        ),
        destination="Anthropic, through the Claude Code CLI signed in on this machine",
    ),
}

#: The providers tried for a harness, in order: a harness's own vendor reads it first.
_PREFERENCE: Mapping[str, tuple[str, ...]] = {
    "claude": ("claude", "codex"),
    "codex": ("codex", "claude"),
}
_DEFAULT_PREFERENCE = ("codex", "claude")


@attrs.frozen(kw_only=True)
class Route:
    """Which provider would read *harness* on this machine now, or why none can."""

    harness: str
    provider: str | None
    #: The executable found on PATH (``None`` when no provider is installed).
    path: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, object]:
        found = PROVIDERS.get(self.provider or "")
        return {
            "harness": self.harness,
            "provider": self.provider,
            "label": found.label if found else None,
            "destination": found.destination if found else None,
            "command": found.command_line() if found else None,
            "reason": self.reason,
        }


def route_for(harness: str, env: Mapping[str, str]) -> Route:
    """The route for *harness*: the first preferred provider whose executable is on ``PATH``."""
    preference = _PREFERENCE.get(harness, _DEFAULT_PREFERENCE)
    search = env.get("PATH")
    for key in preference:
        found = shutil.which(PROVIDERS[key].executable, path=search)
        if found:
            return Route(harness=harness, provider=key, path=found)
    names = " nor ".join(f"the {PROVIDERS[k].label} ({PROVIDERS[k].executable})" for k in preference)
    return Route(
        harness=harness,
        provider=None,
        reason=f"No reader is installed on this machine: neither {names} was found on PATH.",
    )
