"""Copilot CLI's own OpenTelemetry, in the GenAI semantic conventions: the
``gen_ai.client.token.usage`` histogram (``gen_ai.token.type`` output) carrying the
conversation id. Switched on by environment variables only; with the file exporter
(``COPILOT_OTEL_EXPORTER_TYPE=file``) it writes OTLP/JSON lines to
``COPILOT_OTEL_FILE_EXPORTER_PATH``, which is then read like a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.telemetry import FigureSource, TelemetryFile, TelemetrySetup, TelemetryVocabulary

__all__ = ["FILE_VARIABLE", "vocabulary"]

FILE_VARIABLE = "COPILOT_OTEL_FILE_EXPORTER_PATH"


def vocabulary(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    file = env.get(FILE_VARIABLE, "").strip()
    return TelemetryVocabulary(
        services=("github-copilot",),
        session_attributes=("gen_ai.conversation.id", "session.id", "github.copilot.session.id"),
        output_tokens=(
            FigureSource(kind="metric", name="gen_ai.client.token.usage", where={"gen_ai.token.type": "output"}),
        ),
        files=(TelemetryFile(path=Path(file).expanduser(), format="otlp-json"),) if file else (),
        setup=TelemetrySetup(
            environment={"COPILOT_OTEL_ENABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
            note="Copilot CLI takes these from its environment only: export them in the shell that starts it.",
        ),
    )
