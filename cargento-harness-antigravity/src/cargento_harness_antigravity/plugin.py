"""The Antigravity CLI harness plugin: thin hook implementations over this package's modules.

The reader modules load with the first session read: a start whose store holds no session
never imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento import Discovery, HarnessContext, HarnessInfo, ModelInfo, SessionReading, SessionRef, Usage, hookimpl
from cargento.models import HarnessMark, ProcessTie, QuotaWindow, Simulation

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.events import EventLane, HookTarget

from cargento_harness_antigravity import discovery, locations

KEY = "antigravity"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Antigravity CLI",
        turn_end_observable=True,
        reports_waits=False,
        wait_coverage="Antigravity reports no waits: its status-line flag has no precedence rule yet.",
        resumable=False,
        mark=HarnessMark(monogram="AG", hue=160, shape="triangle"),
        relocation_variables=(locations.VARIABLE,),
        process=ProcessTie(
            names=("agy",),
            ties=("cwd",),
            coverage="A running agy process is tied to a session by its working directory (the cached primary workspace); a session whose workspace is unknown cannot be tied.",
        ),
        absent_readings=("waits", "tasks"),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx, KEY)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    from cargento_harness_antigravity import mapping

    return mapping.reading(ref, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    from cargento_harness_antigravity import mapping

    return mapping.model_of(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    from cargento_harness_antigravity import mapping

    return mapping.usage_of(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_antigravity import demo

    return demo.simulate(home, ctx)


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_antigravity import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_antigravity import hook_targets as hook_targets_module

    return hook_targets_module.targets(env, home)


@hookimpl
def read_quota(document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:
    from cargento_harness_antigravity import quota

    return quota.read_pushed(document) if source == "pushed" else ()
