"""The Antigravity CLI harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

from pathlib import Path

from cargento import Discovery, HarnessContext, HarnessInfo, ModelInfo, SessionReading, SessionRef, Usage, hookimpl
from cargento.models import Simulation

from cargento_harness_antigravity import demo, discovery, mapping

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
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx, KEY)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return mapping.reading(ref, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    return mapping.model_of(reading, ctx)


@hookimpl
def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    return mapping.usage_of(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    return demo.simulate(home, ctx)
