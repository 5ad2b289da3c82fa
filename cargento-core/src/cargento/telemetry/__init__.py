"""What a harness's own OpenTelemetry says, and how to switch it on.

A harness plugin that exports OpenTelemetry declares its names through the ``telemetry`` hook
(:class:`TelemetryVocabulary`); the dashboard's receiver maps what arrives onto the sessions
those names identify (:mod:`cargento.telemetry.figures`), and ``cargento telemetry`` applies
the setup the vocabulary describes (:mod:`cargento.telemetry.setup_cmd`).
"""

from cargento.telemetry.vocabulary import (
    DecisionSource,
    FigureSource,
    TelemetryFile,
    TelemetrySetup,
    TelemetryVocabulary,
)

__all__ = ["DecisionSource", "FigureSource", "TelemetryFile", "TelemetrySetup", "TelemetryVocabulary"]
