"""The GitHub Copilot CLI harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cargento import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessInfo,
    ModelInfo,
    SessionReading,
    SessionRef,
    Simulation,
    Usage,
    hookimpl,
)
from cargento.models import HarnessMark, ProcessTie

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.telemetry import TelemetryVocabulary

from cargento_harness_copilot import discovery
from cargento_harness_copilot import mapping as sessions

KEY = "copilot"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="GitHub Copilot CLI",
        turn_end_observable=False,
        reports_waits=True,
        wait_coverage=(
            "Waits are read from events.jsonl with nothing installed: a permission request with no answer "
            "behind it, once it has stood about two seconds; only whether a command or a URL is asked about."
        ),
        resumable=False,
        mark=HarnessMark(monogram="GH", hue=250, shape="circle"),
        relocation_variables=("COPILOT_HOME",),
        process=ProcessTie(
            names=("copilot",),
            ties=("cwd",),
            coverage="A running copilot process is tied to a session by its working directory (session.start's cwd): a session killed at its prompt reads idle once no copilot process runs there; two sessions in one directory cannot be told apart.",
        ),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return sessions.read(ref, ctx)


@hookimpl
def gate_state(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    return sessions.gate(reading, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    return sessions.model(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    return sessions.usage(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_copilot.demo import CopilotSimulation

    return CopilotSimulation(home, ctx.now)


@hookimpl
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    from cargento_harness_copilot import telemetry as telemetry_module

    return telemetry_module.vocabulary(env, home, endpoint)
