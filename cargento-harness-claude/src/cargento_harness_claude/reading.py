"""The ``reading_provider`` hook: the Claude Code CLI as a drift reader.

``claude -p`` prints one answer and exits; ``--tools ''`` offers it no tool, ``--permission-mode
plan`` keeps it read-only, ``--strict-mcp-config`` starts none of the user's MCP servers and
``--no-session-persistence`` leaves no session of its own behind. The prompt arrives on
standard input. ``docs/readings.md`` prints the same command line.
"""

from __future__ import annotations

from cargento import ReadingProvider

__all__ = ["PROVIDER"]

PROVIDER = ReadingProvider(
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
    default_rank=1,
)
