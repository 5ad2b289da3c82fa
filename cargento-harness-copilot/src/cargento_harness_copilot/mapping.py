"""Turning one Copilot session's files into core's models.

The per-file parse state (core's :func:`~cargento.readers.follow_summary`: a follower and the running
:class:`~cargento_harness_copilot.records.SessionSummary`) lives in the plugin cache, so a
refresh reads only the bytes appended since the previous build. The gate, model and usage
hooks read the same cached summary; if the cache lost it, they fold the file again.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from cargento.errors import HarnessError
from cargento.evidence import shown_path
from cargento.labels import clip
from cargento.models import Evidence, Gate, HarnessContext, ModelInfo, SessionReading, SessionRef, Subagent, Usage
from cargento.readers import cached_summary, follow_summary, sqlite
from cargento.timestamps import newest_plausible
from cargento.turns import LONG_TURN_S

from cargento_harness_copilot import ledger, locations, todos
from cargento_harness_copilot.records import SessionSummary
from cargento_harness_copilot.workspace import read_workspace

__all__ = [
    "GATE_AFTER_S",
    "fingerprint",
    "gate",
    "model",
    "read",
    "summary_for",
    "usage",
]

#: A permission request counts once it has stood this long (a headless auto-denial is
#: written and answered about a millisecond apart).
GATE_AFTER_S = 2.0
#: An unfinished subagent of a session silent this long is no longer called running.
SUBAGENT_STALE_S = LONG_TURN_S


def _key(path: str) -> str:
    return "log:" + path


def summary_for(path: str, ctx: HarnessContext) -> SessionSummary:
    """The session summary of *path*, brought up to date with the appended records."""
    return follow_summary(ctx.cache, _key(path), path, SessionSummary, SessionSummary.feed)


def _stat(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return "-"
    return f"{st.st_size}.{st.st_mtime_ns}"


def fingerprint(files: locations.SessionFiles, ledger_file: Path, ctx: HarnessContext) -> str:
    """Everything a reading depends on; a minute bucket while a subagent could go stale."""
    parts = [
        _stat(files.events),
        _stat(files.workspace),
        sqlite.database_stamp(files.todos),
        sqlite.database_stamp(ledger_file),
    ]
    summary = cached_summary(ctx.cache, _key(str(files.events)), SessionSummary)
    if summary is not None and summary.unfinished_subagents() and not summary.ended:
        parts.append(f"m{int(ctx.now.timestamp() // 60)}")
    return "|".join(parts)


def _ledger_rows(session_id: str, ledger_file: Path, ctx: HarnessContext) -> ledger.LedgerRows | None:
    key = f"ledger:{session_id}"
    stamp = sqlite.database_stamp(ledger_file)
    cached: tuple[str, ledger.LedgerRows | None] | None = ctx.cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    rows = ledger.read_ledger(ledger_file, session_id)
    ctx.cache.set(key, (stamp, rows))
    return rows


def _subagents(summary: SessionSummary, now: datetime) -> tuple[Subagent, ...]:
    pills = []
    quiet_since = newest_plausible(now, summary.newest_at)
    for state in summary.subagents.values():
        fresh = quiet_since is not None and (now - quiet_since).total_seconds() <= SUBAGENT_STALE_S
        pills.append(state.pill(running=not state.finished and not summary.ended and fresh))
    return tuple(pills)


def _title(summary: SessionSummary, workspace_name: str | None, user_named: bool | None) -> str | None:
    if workspace_name and user_named:
        return clip(workspace_name, 80)
    text = summary.title_event or workspace_name or summary.first_prompt
    return clip(text.strip().splitlines()[0] if text and text.strip() else text, 80) or None


def read(ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
    """Read one session; ``None`` when its ``events.jsonl`` holds no event yet."""
    events = Path(ref.path)
    directory = events.parent
    summary = summary_for(str(events), ctx)
    if summary.records == 0:
        return None
    workspace = read_workspace(directory)
    missing: list[str] = []
    notes: list[str] = []
    try:
        tasks = todos.read_todos(directory / "session.db")
    except HarnessError as exc:
        tasks = ()
        missing.append("tasks")
        notes.append(str(exc))
    base = Path(ref.location) if ref.location else directory.parent.parent
    try:
        _ledger_rows(ref.session_id, locations.ledger_path(base), ctx)
    except HarnessError as exc:
        ctx.cache.pop(f"ledger:{ref.session_id}")
        missing.append("AI Units")
        notes.append(str(exc))
    last = summary.last_active(ctx.now)
    if last is None and ref.modified_at is not None:
        last = ref.modified_at
    return SessionReading(
        ref=ref,
        title=_title(summary, workspace.name, workspace.user_named),
        cwd=summary.cwd or workspace.cwd,
        started_at=summary.started_at,
        last_active_at=last,
        turn=summary.turn(),
        thinking=summary.thinking(),
        last_tool=summary.last_tool,
        last_tool_raw=summary.last_tool_raw,
        tasks=tasks,
        subagents=_subagents(summary, ctx.now),
        instruction=summary.instruction(),
        ended=summary.ended,
        missing=tuple(missing),
        notes=tuple(notes),
        evidence=_evidence(summary, shown_path(ref.path, str(ctx.home))),
        harness_version=summary.version,
        unknown_records=summary.drift.snapshot(),
    )


def _evidence(summary: SessionSummary, source: str) -> tuple[Evidence, ...]:
    """The events the reader decided on: each permission request with no answer behind it
    (the gate hook publishes one once it has stood long enough), and a recorded end."""
    items = [
        Evidence(
            reading="wait",
            signal="store record",
            source=source,
            observed_at=p.at,
            said=f"permission.requested ({p.kind}) has no permission.completed behind it",
        )
        for p in sorted(summary.permissions.values(), key=lambda p: p.at)
    ]
    if summary.ended:
        items.append(
            Evidence(
                reading="state", signal="store record", source=source, said="the events record that the session ended"
            )
        )
    return tuple(items)


def _cached_summary(reading: SessionReading, ctx: HarnessContext) -> SessionSummary | None:
    summary = cached_summary(ctx.cache, _key(reading.ref.path), SessionSummary)
    if summary is not None:
        return summary
    try:
        return summary_for(reading.ref.path, ctx)
    except HarnessError:
        return None


def gate(reading: SessionReading, ctx: HarnessContext) -> Gate | None:
    """A permission request with no answer, standing at least :data:`GATE_AFTER_S`."""
    summary = _cached_summary(reading, ctx)
    if summary is None or summary.ended:
        return None
    standing = [p for p in summary.permissions.values() if (ctx.now - p.at).total_seconds() >= GATE_AFTER_S]
    if not standing:
        return None
    oldest = min(standing, key=lambda p: p.at)
    return Gate(kind=oldest.kind, text=None, since=oldest.at, source="events.jsonl")


def model(reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
    """The model the main agent uses, as the events (else the ledger) name it."""
    summary = _cached_summary(reading, ctx)
    if summary is not None and summary.model:
        return ModelInfo(id=summary.model)
    rows = _cached_ledger(reading, ctx)
    if rows is not None and rows.model:
        return ModelInfo(id=rows.model)
    return None


def _cached_ledger(reading: SessionReading, ctx: HarnessContext) -> ledger.LedgerRows | None:
    if "AI Units" in reading.missing:
        return None
    cached: tuple[str, ledger.LedgerRows | None] | None = ctx.cache.get(f"ledger:{reading.ref.session_id}")
    if cached is not None:
        return cached[1]
    base = Path(reading.ref.location) if reading.ref.location else Path(reading.ref.path).parent.parent.parent
    try:
        return _ledger_rows(reading.ref.session_id, locations.ledger_path(base), ctx)
    except HarnessError:
        return None


def usage(reading: SessionReading, ctx: HarnessContext) -> Usage | None:
    """Output tokens from the session's usage records, and AI Units from the ledger."""
    summary = _cached_summary(reading, ctx)
    window: int | None = None
    total: int | None = None
    if summary is not None and summary.tokens_seen:
        window = summary.tokens.in_window(ctx.now)
        total = summary.tokens_total
    units = ledger.ai_units(_cached_ledger(reading, ctx), ctx.now, ctx.window_s)
    if window is None and total is None and units is None:
        return None
    return Usage(output_tokens_window=window, output_tokens_total=total, ai_units=units)
