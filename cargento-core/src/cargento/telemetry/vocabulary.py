"""The names a harness's OpenTelemetry uses, declared by its plugin.

Everything here is data: a metric or log-event name, the attribute that carries a figure, the
attribute that names the session. Core reads every harness's export the same way through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["DecisionSource", "FigureSource", "TelemetryFile", "TelemetrySetup", "TelemetryVocabulary"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class FigureSource:
    """Where one figure (output tokens, cost) arrives.

    ``kind="metric"``: the data points of the metric *name* whose attributes include every pair
    of *where* (for example ``{"type": "output"}``); a cumulative sum is read as a running
    total, a delta sum is added up. ``kind="event"``: the log records whose event name is
    *name*, the figure in their attribute *field*.
    """

    kind: Literal["metric", "event"]
    name: str
    field: str | None = None
    where: Mapping[str, str] = attrs.field(factory=dict)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class DecisionSource:
    """A log event recording a tool decision; *field* holds the decision (``accept``...)."""

    name: str
    field: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TelemetryFile:
    """A file a harness writes its telemetry to instead of exporting it.

    ``format="otlp-json"``: one OTLP/JSON export request per line (Copilot CLI's file exporter).
    ``format="sdk-json"``: a stream of JSON objects, one per log record, as the OpenTelemetry
    JavaScript SDK prints them (``attributes`` holding ``event.name`` and the record's fields,
    possibly spread over several lines; Gemini CLI's ``outfile``). Only log records are read from
    the second form.
    """

    path: Path
    format: Literal["otlp-json", "sdk-json"] = "otlp-json"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TelemetrySetup:
    """What the harness needs to export to Cargento's receiver, prompt logging left off.

    *environment* is what the harness reads from its environment. Where the harness also
    takes these from a settings file, *settings_path* names it and *settings* holds the keys
    ``cargento telemetry install`` merges into it (a JSON object merged key by key; for a TOML
    file, *toml_block* is the table appended between Cargento's marker lines). Where neither
    is set, only ``show`` applies: the variables belong in the shell that starts the harness.
    """

    environment: Mapping[str, str] = attrs.field(factory=dict)
    settings_path: Path | None = None
    settings: Mapping[str, Any] = attrs.field(factory=dict)
    toml_block: str | None = None
    note: str = ""


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TelemetryVocabulary:
    """One harness's OpenTelemetry names.

    :ivar services: resource ``service.name`` values that identify this harness's exports.
    :ivar session_attributes: attribute keys (on the data point, the log record or the
        resource) that carry the harness's session id, tried in order.
    :ivar output_tokens: where exact output-token counts arrive.
    :ivar cost_usd: where cost in US dollars arrives (empty where the harness reports none).
    :ivar api_errors: log-event names of a failed model request.
    :ivar tool_decisions: log events recording an accepted or rejected tool call.
    :ivar files: telemetry files the harness writes locally instead of exporting (read
        read-only and incrementally, like a store).
    :ivar setup: how to switch the export on.
    """

    services: tuple[str, ...]
    session_attributes: tuple[str, ...]
    output_tokens: tuple[FigureSource, ...] = ()
    cost_usd: tuple[FigureSource, ...] = ()
    api_errors: tuple[str, ...] = ()
    tool_decisions: tuple[DecisionSource, ...] = ()
    files: tuple[TelemetryFile, ...] = ()
    setup: TelemetrySetup = attrs.field(factory=TelemetrySetup)
