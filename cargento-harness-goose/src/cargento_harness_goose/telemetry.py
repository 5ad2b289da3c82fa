"""Goose's own OpenTelemetry: exported when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set, its service
named ``goose``. Its session counters are totals of every token kind, not output tokens, so
no figure is taken from them: the receiver shows that Goose is feeding, nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import TelemetrySetup, TelemetryVocabulary

__all__ = ["vocabulary"]


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    return TelemetryVocabulary(
        services=("goose",),
        session_attributes=("session.id",),
        setup=TelemetrySetup(
            environment={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
            note="Goose takes this from its environment only: export it in the shell that starts it.",
        ),
    )
