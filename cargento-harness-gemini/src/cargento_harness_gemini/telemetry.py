"""Gemini CLI's own OpenTelemetry: the ``gemini_cli.token.usage`` metric (``type`` output) and
the ``gemini_cli.api_response`` / ``gemini_cli.api_error`` / ``gemini_cli.tool_call`` events,
carrying ``session.id``, switched on by the ``telemetry`` object of ``settings.json``
(``logPrompts`` false keeps prompt text out).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import DecisionSource, FigureSource, TelemetrySetup, TelemetryVocabulary

from cargento_harness_gemini import locations

__all__ = ["vocabulary"]


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    base = env.get(locations.VARIABLE)
    settings = (Path(base) if base else home) / locations.DEFAULT / "settings.json"
    return TelemetryVocabulary(
        services=("gemini-cli",),
        session_attributes=("session.id",),
        output_tokens=(
            FigureSource(kind="metric", name="gemini_cli.token.usage", where={"type": "output"}),
            FigureSource(kind="event", name="gemini_cli.api_response", field="output_token_count"),
        ),
        api_errors=("gemini_cli.api_error",),
        tool_decisions=(DecisionSource(name="gemini_cli.tool_call", field="decision"),),
        setup=TelemetrySetup(
            settings_path=settings,
            settings={
                "telemetry": {
                    "enabled": True,
                    "target": "local",
                    "otlpEndpoint": endpoint,
                    "otlpProtocol": "http",
                    "logPrompts": False,
                }
            },
            note="Gemini CLI reads the telemetry object of settings.json at start.",
        ),
    )
