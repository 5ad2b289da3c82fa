"""The Claude Code harness plugin: thin hook implementations over this package's modules.

* :mod:`~cargento_harness_claude.locations` - where the store lives;
* :mod:`~cargento_harness_claude.discovery` - finding sessions with ``stat`` calls;
* :mod:`~cargento_harness_claude.transcript` - folding a transcript incrementally;
* :mod:`~cargento_harness_claude.records` - what one record says;
* :mod:`~cargento_harness_claude.subagents`, :mod:`~cargento_harness_claude.teams`,
  :mod:`~cargento_harness_claude.tasks`, :mod:`~cargento_harness_claude.pidfile` - the other
  parts of the store;
* :mod:`~cargento_harness_claude.mapping` and :mod:`~cargento_harness_claude.gates` - mapping
  it all onto core's models.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from cargento.models import (
    HarnessMark,
    McpSession,
    ProcessTie,
    QuotaEndpoint,
    QuotaWindow,
    ReadingProvider,
    WorkRecord,
)

if TYPE_CHECKING:
    # Types of the event and telemetry hooks, for annotations only: those modules load
    # when such a hook is first called.
    from cargento.events import EventLane, HookTarget, LifecycleEvent
    from cargento.telemetry import TelemetryVocabulary

from cargento_harness_claude import discovery, gates, locations, mapping

KEY = "claude"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Claude Code",
        turn_end_observable=True,
        reports_waits=True,
        wait_coverage=(
            "Waits are read from a live process's sessions/<pid>.json status, a pending "
            "AskUserQuestion or ExitPlanMode in the transcript, and the teams roster; with events "
            "installed, also from the PermissionRequest and Notification hooks."
        ),
        resumable=True,
        prompt_as_goal=True,
        mark=HarnessMark(monogram="CC", hue=24, shape="circle"),
        relocation_variables=(locations.VARIABLE,),
        # Claude Code starts a stdio MCP server with the session's id and project directory.
        mcp_session=McpSession(variable="CLAUDE_CODE_SESSION_ID", project_variable="CLAUDE_PROJECT_DIR"),
        process=ProcessTie(
            names=("claude",),
            ties=("pid file",),
            coverage="A running Claude Code process is tied to its session by the pid file it keeps (sessions/<pid>.json, verified by start time); a process with no pid file cannot be tied to a session, and no session is judged by directory. A running claude process in whose directory no session has written since it started (Claude Code writes its transcript on the first prompt) shows as starting.",
        ),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx)[0]


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return mapping.read(ref, ctx)


@hookimpl
def gate_state(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    index, files = mapping.files_for(reading.ref, ctx)
    return gates.gate(reading, index, files, mapping.summary_for(files, ctx), ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    return mapping.model_info(mapping.files_for(reading.ref, ctx)[1], ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    return mapping.usage_of(mapping.files_for(reading.ref, ctx)[1], ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_claude import demo
    from cargento_harness_claude.spacedock_demo import SpacedockDemo
    from cargento_harness_claude.stuck import Showroom, StuckSession

    return Showroom(demo.start(home, ctx), StuckSession(home, ctx), SpacedockDemo(home, ctx))


@hookimpl
def event_lane() -> EventLane:
    from cargento_harness_claude import event_lane as event_lane_module

    return event_lane_module.LANE


@hookimpl
def refine_event(event: LifecycleEvent, body: Mapping[str, Any]) -> LifecycleEvent:
    from cargento_harness_claude import event_lane as event_lane_module

    return event_lane_module.refine(event, body)


@hookimpl
def hook_targets(env: Mapping[str, str], home: Path, project: Path | None) -> tuple[HookTarget, ...]:
    from cargento_harness_claude import hook_targets as hook_targets_module

    return hook_targets_module.targets(env, home)


@hookimpl
def telemetry(env: Mapping[str, str], home: Path, endpoint: str) -> TelemetryVocabulary:
    from cargento_harness_claude import telemetry as telemetry_module

    return telemetry_module.vocabulary(env, home, endpoint)


@hookimpl
def quota_endpoint(env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint | None:
    from cargento_harness_claude import quota

    return quota.endpoint(env, home, platform)


@hookimpl
def read_quota(document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:
    from cargento_harness_claude import quota

    return quota.read_reply(document) if source == "reply" else ()


@hookimpl
def work_record(ref: SessionRef, ctx: HarnessContext, tool_output: bool) -> WorkRecord:
    from cargento_harness_claude import work

    return work.work_record(ref, ctx, tool_output)


@hookimpl
def reading_provider() -> ReadingProvider:
    from cargento_harness_claude import reading

    return reading.PROVIDER
