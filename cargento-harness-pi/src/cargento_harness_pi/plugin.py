"""The Pi harness plugin: thin hook implementations over this package's modules."""

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
from cargento.models import HarnessMark, ProcessTie, WorkRecord

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.events import EventLane, HookTarget, LifecycleEvent

    from cargento_harness_pi.tree import SessionTree

# The session tree and the mapping onto core's models load with the first session read: a
# machine with no Pi session in the window pays for discovery alone.
from cargento_harness_pi import locations
from cargento_harness_pi.discovery import KEY, cached_header, discover_sessions

__all__ = ["KEY", "discover", "harness_info", "model", "read_session", "simulate", "usage"]


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Pi",
        turn_end_observable=False,
        reports_waits=True,
        wait_coverage=(
            "Waits are reported only for extension UI prompts in persisted sessions, through the bundled "
            "pi_extension.js adapter with events on."
        ),
        resumable=False,
        mark=HarnessMark(monogram="π", hue=280, shape="hex"),
        relocation_variables=(locations.CONFIG_VARIABLE, locations.SESSION_VARIABLE),
        process=ProcessTie(
            names=("pi",),
            ties=("cwd",),
            coverage="A running pi process is tied to a session by its working directory; a --session-dir launch and two sessions in one directory cannot be told apart.",
        ),
        absent_readings=("subagents", "tasks"),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discover_sessions(ctx)


def _tree(path: str, ctx: HarnessContext) -> SessionTree | None:
    header = cached_header(ctx, path)
    if header is None:
        return None
    from cargento_harness_pi.tree import load

    return load(ctx.cache, path, header)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    tree = _tree(ref.path, ctx)
    if tree is None:
        return None
    from cargento_harness_pi import mapping

    return mapping.reading(ref, tree, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    from cargento_harness_pi import mapping

    tree = _tree(reading.ref.path, ctx)
    return mapping.model_info(tree) if tree is not None else None


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    from cargento_harness_pi import mapping

    tree = _tree(reading.ref.path, ctx)
    return mapping.usage(tree, ctx) if tree is not None else None


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_pi.demo import PiDemo

    demo = PiDemo(home, ctx.now)
    demo.step(ctx.now)
    return demo


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_pi import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    from cargento_harness_pi import event_lane as event_lane_module

    return event_lane_module.refine(event, body)


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_pi import hook_targets as hook_targets_module

    return hook_targets_module.targets(env, home)


@hookimpl
def work_record(ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord:
    from cargento_harness_pi import work

    return work.work_record(ref, ctx, tool_output)
