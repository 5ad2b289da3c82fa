"""The ``reading_provider`` hook: the Codex CLI as a drift reader.

``codex exec`` runs one non-interactive turn; ``--sandbox read-only`` keeps it from writing,
``--skip-git-repo-check`` lets it start in the empty scratch folder a reading runs in,
``--ephemeral`` keeps no rollout of its own, and ``-`` reads the prompt from standard input.
It is the first provider for a harness that declares none of its own (``default_rank=0``), and
the one that offers goal summaries. ``docs/readings.md`` prints the same command line.
"""

from __future__ import annotations

from cargento import ReadingProvider

__all__ = ["PROVIDER"]

PROVIDER = ReadingProvider(
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
    default_rank=0,
    summaries=True,
)
