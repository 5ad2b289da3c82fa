"""Gemini CLI's own OpenTelemetry: the ``gemini_cli.token.usage`` metric (``type`` output) and
the ``gemini_cli.api_response`` / ``gemini_cli.api_error`` / ``gemini_cli.tool_call`` events,
carrying ``session.id``, switched on by the ``telemetry`` object of ``settings.json``
(``logPrompts`` false keeps prompt text out). With ``telemetry.outfile`` set, the events are
written to that file instead, which is then read like a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import DecisionSource, FigureSource, TelemetryFile, TelemetrySetup, TelemetryVocabulary

from cargento_harness_gemini import locations
from cargento_harness_gemini.telemetry_file import outfile

__all__ = ["vocabulary"]


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    base = env.get(locations.VARIABLE)
    settings = (Path(base) if base else home) / locations.DEFAULT / "settings.json"
    written = outfile(settings, home)
    return TelemetryVocabulary(
        services=("gemini-cli",),
        session_attributes=("session.id",),
        output_tokens=(
            FigureSource(kind="metric", name="gemini_cli.token.usage", where={"type": "output"}),
            FigureSource(kind="event", name="gemini_cli.api_response", field="output_token_count"),
        ),
        api_errors=("gemini_cli.api_error",),
        tool_decisions=(DecisionSource(name="gemini_cli.tool_call", field="decision"),),
        files=(TelemetryFile(path=written, format="sdk-json"),) if written else (),
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
