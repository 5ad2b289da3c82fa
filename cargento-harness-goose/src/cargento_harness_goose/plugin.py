"""The Goose harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cargento import (
    Discovery,
    HarnessContext,
    HarnessInfo,
    ModelInfo,
    SessionReading,
    SessionRef,
    Simulation,
    Usage,
    hookimpl,
)
from cargento.models import HarnessMark, McpSession, ProcessTie

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.telemetry import TelemetryVocabulary

from cargento_harness_goose import store

KEY = store.KEY


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Goose",
        turn_end_observable=False,
        reports_waits=False,
        wait_coverage="Goose records no wait on the human in its store, so a quiet Goose row is not proof nothing is waiting.",
        resumable=False,
        mark=HarnessMark(monogram="GO", hue=100, shape="hex"),
        relocation_variables=("XDG_DATA_HOME", "APPDATA", "LOCALAPPDATA"),
        # Goose puts the session id in every stdio extension's environment (goose PR #7072);
        # the name is generic, so only a value of Goose's own id form (20260211_64) is taken.
        mcp_session=McpSession(variable="AGENT_SESSION_ID", pattern=r"\d{8}_\d+"),
        process=ProcessTie(
            names=("goose",),
            ties=("cwd",),
            coverage="A running goose process is tied to a session by its working directory (the row's working_dir); two sessions in one directory cannot be told apart.",
        ),
        absent_readings=("waits", "tasks"),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return store.discover(ctx)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return store.read(ref, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    return store.model(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    return store.usage(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_goose import demo

    return demo.start(home, ctx)


@hookimpl
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    from cargento_harness_goose import telemetry as telemetry_module

    return telemetry_module.vocabulary(env, home, endpoint)
