"""The Cursor CLI harness plugin: thin hook implementations over this package's modules."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from cargento import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessInfo,
    ModelInfo,
    SessionReading,
    SessionRef,
    Simulation,
    hookimpl,
)
from cargento.models import HarnessMark, ProcessTie, QuotaEndpoint, QuotaWindow

from cargento_harness_cursor import store

KEY = store.KEY


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Cursor CLI",
        turn_end_observable=False,
        reports_waits=True,
        wait_coverage=(
            "Waits are read from the store with nothing installed: a pending tool-call gate on the newest "
            "blob of a parent chat, while the row is fresh; a subagent's gate is not read."
        ),
        resumable=False,
        mark=HarnessMark(monogram="CU", hue=0, shape="diamond"),
        process=ProcessTie(
            names=("cursor-agent",),
            ties=("cwd",),
            coverage="A running cursor-agent process is tied to a chat by its working directory (meta.json's cwd): a chat abandoned at a prompt reads idle once no cursor-agent runs there; a chat with no known workspace cannot be tied.",
        ),
        absent_readings=("tasks", "tokens", "eta"),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return store.discover(ctx)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    return store.read(ref, ctx)


@hookimpl
def gate_state(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    return store.gate(reading, ctx)


@hookimpl
def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    return store.model(reading, ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_cursor import demo

    return demo.start(home, ctx)


@hookimpl
def quota_endpoint(env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint | None:
    from cargento_harness_cursor import quota

    return quota.endpoint(env, home, platform)


@hookimpl
def read_quota(document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:
    from cargento_harness_cursor import quota

    return quota.read_reply(document) if source == "reply" else ()
