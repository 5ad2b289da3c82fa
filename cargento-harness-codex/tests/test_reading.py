"""The ``reading_provider`` hook: the Codex CLI reads a session in a read-only sandbox, is the
default reader of sessions whose harness declares none, and offers goal summaries."""

from __future__ import annotations

from cargento_harness_codex import plugin


def test_the_reading_provider_is_codex_exec_read_only_from_stdin() -> None:
    provider = plugin.reading_provider()
    assert provider.key == "codex" and provider.executable == "codex"
    assert provider.command_line() == "codex exec --sandbox read-only --skip-git-repo-check --ephemeral --color never -"
    assert provider.command("/opt/bin/codex")[0] == "/opt/bin/codex"
    assert provider.default_rank == 0 and provider.summaries
