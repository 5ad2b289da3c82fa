"""The OpenCode harness plugin: thin hook implementations over this package's modules.

The reader modules load with the first session read: a start whose store holds no session
never imports them.
"""

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
    from cargento.events import EventLane, HookTarget

from cargento_harness_opencode import discovery

KEY = "opencode"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="OpenCode",
        turn_end_observable=False,
        reports_waits=True,
        wait_coverage=(
            "A tool call parked at a permission prompt is read from the database with nothing installed "
            "(bash, edits, writes, task and question tools, after it has stood a few seconds); the per-project "
            "passive plugin reports parent permission waits too, with events on."
        ),
        resumable=False,
        mark=HarnessMark(monogram="OC", hue=50, shape="square"),
        relocation_variables=("XDG_DATA_HOME", "LOCALAPPDATA"),
        process=ProcessTie(
            names=("opencode",),
            ties=("cwd",),
            coverage="A running opencode process is tied to a session by its working directory (the session row's directory); an opencode server serving several directories ties only its own.",
        ),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    from cargento_harness_opencode import mapping as sessions

    return sessions.read(ref, ctx)


@hookimpl
def gate_state(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    from cargento_harness_opencode import mapping as sessions

    return sessions.gate(reading, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    from cargento_harness_opencode import mapping as sessions

    return sessions.model(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    from cargento_harness_opencode import mapping as sessions

    return sessions.usage(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_opencode.demo import OpenCodeSimulation

    return OpenCodeSimulation(home, ctx.now)


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_opencode import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_opencode import hook_targets as hook_targets_module

    return hook_targets_module.targets(project)
