"""The Factory Droid harness plugin: thin hook implementations over this package's modules.

The reader modules load with the first session read: a start whose store holds no session
never imports them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from cargento import Discovery, HarnessContext, HarnessInfo, SessionReading, SessionRef, hookimpl
from cargento.errors import HarnessDataMissing
from cargento.models import HarnessMark, ProcessTie, Simulation
from cargento.readers import follow_summary

from cargento_harness_droid import discovery

KEY = "droid"


@hookimpl
def harness_info() -> HarnessInfo:
    return HarnessInfo(
        key=KEY,
        label="Factory Droid",
        turn_end_observable=False,
        reports_waits=False,
        wait_coverage="Factory Droid has no wait detection: its store records no permission prompt.",
        resumable=False,
        mark=HarnessMark(monogram="FD", hue=320, shape="triangle"),
        process=ProcessTie(
            names=("droid",),
            ties=("cwd",),
            coverage="A running droid process is tied to a session by its working directory (session_start's cwd); two sessions in one directory cannot be told apart.",
        ),
        absent_readings=("model", "waits", "subagents", "tasks", "tokens"),
    )


@hookimpl
def discover(ctx: HarnessContext) -> Discovery:
    return discovery.discover(ctx, KEY)


@hookimpl
def read_session(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    from cargento_harness_droid import mapping
    from cargento_harness_droid.transcript import Transcript

    path = Path(ref.path)
    try:
        st = path.stat()
    except OSError as exc:
        raise HarnessDataMissing(f"{path.name} is gone") from exc
    transcript = follow_summary(ctx.cache, f"file:{path}", path, Transcript, Transcript.apply)
    if transcript.header is None and transcript.messages == 0:
        return None
    return mapping.reading(ref, transcript, datetime.fromtimestamp(st.st_mtime, UTC), ctx)


@hookimpl
def simulate(home: Path, ctx: HarnessContext) -> Simulation | None:
    # The demo (and the store builders it writes with) is imported only for --demo: every other
    # start would pay for modules it never runs.
    from cargento_harness_droid import demo

    return demo.simulate(home, ctx)
