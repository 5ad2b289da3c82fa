"""Claude Code's own OpenTelemetry: metrics (``claude_code.token.usage``, ``claude_code.cost.usage``)
and log events (``claude_code.api_request``, ``claude_code.api_error``,
``claude_code.tool_decision``), every one carrying ``session.id``.

It is switched on by environment variables, which Claude Code also reads from the ``env`` object
of its ``settings.json``; ``cargento telemetry install claude`` merges them there. Prompt text is
logged only with ``OTEL_LOG_USER_PROMPTS=1``, which is never set.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import DecisionSource, FigureSource, TelemetrySetup, TelemetryVocabulary

from cargento_harness_claude.hook_targets import settings_path

__all__ = ["vocabulary"]


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    environment = {
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        # Metrics every 10 s rather than the default 60 s, so the rate follows the work.
        "OTEL_METRIC_EXPORT_INTERVAL": "10000",
    }
    return TelemetryVocabulary(
        services=("claude-code",),
        session_attributes=("session.id",),
        output_tokens=(
            FigureSource(kind="metric", name="claude_code.token.usage", where={"type": "output"}),
            FigureSource(kind="event", name="claude_code.api_request", field="output_tokens"),
        ),
        cost_usd=(
            FigureSource(kind="metric", name="claude_code.cost.usage"),
            FigureSource(kind="event", name="claude_code.api_request", field="cost_usd"),
        ),
        api_errors=("claude_code.api_error",),
        tool_decisions=(DecisionSource(name="claude_code.tool_decision", field="decision"),),
        setup=TelemetrySetup(
            environment=environment,
            settings_path=settings_path(env, home),
            settings={"env": environment},
            note="Claude Code reads these from the env object of its settings.json; restart a session to apply.",
        ),
    )
