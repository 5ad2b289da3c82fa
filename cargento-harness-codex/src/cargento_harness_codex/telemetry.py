"""Codex's own OpenTelemetry: log events (``codex.sse_event`` with ``output_token_count``,
``codex.tool_decision``) sharing ``conversation.id``, exported by the ``[otel]`` table of
``config.toml``. ``log_user_prompt = false`` keeps prompt text out (it is also the default).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import DecisionSource, FigureSource, TelemetrySetup, TelemetryVocabulary

from cargento_harness_codex import locations

__all__ = ["vocabulary"]


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    base = env.get(locations.VARIABLE)
    config = (Path(base) if base else home / locations.DEFAULT) / "config.toml"
    block = (
        "[otel]\n"
        'environment = "cargento"\n'
        "log_user_prompt = false\n"
        f'exporter = {{ otlp-http = {{ endpoint = "{endpoint}/v1/logs", protocol = "binary" }} }}\n'
    )
    return TelemetryVocabulary(
        services=("codex_cli_rs", "codex_exec", "codex_tui", "codex-cli"),
        session_attributes=("conversation.id",),
        output_tokens=(FigureSource(kind="event", name="codex.sse_event", field="output_token_count"),),
        tool_decisions=(DecisionSource(name="codex.tool_decision", field="decision"),),
        setup=TelemetrySetup(
            settings_path=config,
            toml_block=block,
            note="Codex reads the [otel] table at start; a config.toml that already has one is left alone.",
        ),
    )
