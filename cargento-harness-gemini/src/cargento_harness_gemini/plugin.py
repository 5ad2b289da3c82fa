"""The Gemini CLI harness plugin: thin hook implementations over this package's modules.

The reader modules load with the first session read: a start whose store holds no session
never imports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento import Discovery, HarnessContext, HarnessInfo, ModelInfo, SessionReading, SessionRef, Usage, hookimpl
from cargento.models import HarnessMark, ProcessTie, Simulation

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.events import EventLane, HookTarget, LifecycleEvent
    from cargento.telemetry import TelemetryVocabulary

from cargento_harness_gemini import discovery, locations

KEY = "gemini"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Gemini CLI",
        turn_end_observable=True,
        reports_waits=False,
        wait_coverage="Gemini CLI's store records no approval wait; its Notification hook is not wired yet.",
        resumable=False,
        mark=HarnessMark(monogram="GE", hue=220, shape="diamond"),
        relocation_variables=(locations.VARIABLE,),
        process=ProcessTie(
            names=("gemini",),
            ties=("cwd",),
            coverage="A running gemini process is tied to a session by its working directory (the chat's first workspace directory); two sessions in one directory cannot be told apart.",
        ),
        absent_readings=("waits",),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx, KEY)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    from cargento_harness_gemini import mapping

    return mapping.reading(ref, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    from cargento_harness_gemini import mapping

    return mapping.model_of(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    from cargento_harness_gemini import mapping

    return mapping.usage_of(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_gemini import demo

    return demo.simulate(home, ctx)


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_gemini import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    from cargento_harness_gemini import event_lane as event_lane_module

    return event_lane_module.refine(event, body)


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_gemini import hook_targets as hook_targets_module

    return hook_targets_module.targets(env, home)


@hookimpl
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    from cargento_harness_gemini import telemetry as telemetry_module

    return telemetry_module.vocabulary(env, home, endpoint)
