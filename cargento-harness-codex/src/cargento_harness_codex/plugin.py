"""The Codex harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from cargento.errors import HarnessError
from cargento.models import HarnessMark, ProcessTie, ReadingProvider

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.events import EventLane, HookTarget, LifecycleEvent
    from cargento.telemetry import TelemetryVocabulary

    from cargento_harness_codex.rollout import Rollout

# The rollout reader and the mapping onto core's models load with the first session read: a
# machine with no Codex session in the window pays for discovery alone.
from cargento_harness_codex import locations
from cargento_harness_codex.discovery import KEY, cached_meta, descendants, discover_rollouts

__all__ = ["KEY", "discover", "harness_info", "model", "read_session", "simulate", "usage"]


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Codex",
        turn_end_observable=True,
        reports_waits=True,
        wait_coverage=(
            "Waits are reported only by the bundled PermissionRequest hook, once approved in Codex; "
            "the row cannot say which tool."
        ),
        resumable=True,
        prompt_as_goal=True,
        mark=HarnessMark(monogram="CX", hue=200, shape="square"),
        relocation_variables=(locations.VARIABLE,),
        process=ProcessTie(
            names=("codex",),
            ties=("cwd",),
            coverage="A running codex process is tied to a session by its working directory; two sessions in one directory cannot be told apart, and a process this user may not inspect ties nothing.",
        ),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    found, _ = discover_rollouts(ctx)
    return found


def _rollout(path: str, ctx: HarnessContext) -> Rollout | None:
    meta = cached_meta(ctx, path)
    if meta is None:
        return None
    from cargento_harness_codex.rollout import load

    return load(ctx.cache, path, meta, ctx.now)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    rollout = _rollout(ref.path, ctx)
    if rollout is None:
        return None
    from cargento_harness_codex import mapping

    return mapping.reading(ref, rollout, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    from cargento_harness_codex import mapping

    rollout = _rollout(reading.ref.path, ctx)
    return mapping.model_info(rollout.summary) if rollout is not None else None


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    rollout = _rollout(reading.ref.path, ctx)
    if rollout is None:
        return None
    totals: list[int | None] = []
    for path in descendants(ctx, rollout.meta.id):
        try:
            child = _rollout(path, ctx)
        except HarnessError:
            totals.append(None)
            continue
        totals.append(child.summary.total if child is not None else None)
    from cargento_harness_codex import mapping

    return mapping.usage(rollout, ctx, totals)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_codex.demo import CodexDemo

    demo = CodexDemo(home, ctx.now)
    demo.step(ctx.now)
    return demo


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_codex import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    from cargento_harness_codex import event_lane as event_lane_module

    return event_lane_module.refine(event, body)


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_codex import hook_targets as hook_targets_module

    return hook_targets_module.targets(env, home)


@hookimpl
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    from cargento_harness_codex import telemetry as telemetry_module

    return telemetry_module.vocabulary(env, home, endpoint)


@hookimpl
def reading_provider() -> ReadingProvider:
    from cargento_harness_codex import reading

    return reading.PROVIDER
