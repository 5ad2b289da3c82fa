"""Needs input, from the three passive sources in the store.

1. A verified live process's ``sessions/<pid>.json`` saying ``waiting`` (what for is in
   ``waitingFor``); a verified ``busy`` or ``idle`` status outranks the transcript, since a
   live process that waits says so.
2. A pending ``AskUserQuestion`` or ``ExitPlanMode`` in the transcript (no result yet),
   shown as the question itself or the plan's first line. Claude Code flushes that record
   on its own schedule, so this is opportunistic.
3. A teams-roster member with no transcript anywhere, past the start grace, while the
   session is inside the display window.

Hook-driven waits (PermissionRequest, Notification) arrive as core overlays on top of this.
"""

from __future__ import annotations

from datetime import datetime

from cargento.models import Gate, HarnessContext, SessionReading

from cargento_harness_claude import records as rec
from cargento_harness_claude import status, teams
from cargento_harness_claude.discovery import Index, SessionFiles
from cargento_harness_claude.subagents import read_meta
from cargento_harness_claude.transcript import Summary

__all__ = ["gate", "pid_gate", "roster_gate", "transcript_gate"]

_INPUT_KINDS = {"AskUserQuestion": "question", "ExitPlanMode": "plan"}


def pid_gate(files: SessionFiles | None, summary: Summary | None) -> tuple[Gate | None, bool]:
    """``(gate, decided)``: the pid file's gate, and whether a trusted status decided the
    question at all (a trusted ``busy``/``idle`` means nothing stands in the transcript)."""
    pid = status.trusted(files, summary)
    if pid is None:
        return None, False
    if pid.status != "waiting":
        return None, True
    waiting_for = pid.waiting_for or "input"
    pending = summary.pending_input() if summary is not None else None
    if pending is not None:
        call, _ = pending
        return Gate(
            kind=_INPUT_KINDS.get(call.name, "input"),
            text=rec.input_summary(call) or waiting_for,
            since=pid.status_at,
            source="pid file",
        ), True
    kind = "permission" if "permission" in waiting_for.lower() else "input"
    text = waiting_for
    open_call = summary.newest_open_call() if summary is not None else None
    if kind == "permission" and open_call is not None:
        text = f"{waiting_for} · {rec.call_summary(open_call[0])}"
    return Gate(kind=kind, text=text, since=pid.status_at, source="pid file"), True


def transcript_gate(summary: Summary) -> Gate | None:
    """A pending input tool in the transcript."""
    pending = summary.pending_input()
    if pending is None:
        return None
    call, at = pending
    return Gate(kind=_INPUT_KINDS.get(call.name, "input"), text=rec.input_summary(call), since=at, source="transcript")


def _started_names(index: Index, files: SessionFiles) -> set[str]:
    names: set[str] = set()
    for agent in files.agents:
        meta = read_meta(agent.meta_path)
        if meta.name:
            names.add(meta.name)
        names.add(agent.agent_id)
    for child_id in files.children:
        child = index.sessions.get(child_id)
        if child is not None and child.head is not None and child.head.agent_name:
            names.add(child.head.agent_name)
    return names


def roster_gate(index: Index, files: SessionFiles, last_active: datetime | None, ctx: HarnessContext) -> Gate | None:
    """A roster member that never wrote a transcript, past the start grace."""
    if not ctx.in_window(last_active):
        return None
    roster = index.roster(files.session_id)
    if roster is None or not roster.members:
        return None
    started = _started_names(index, files)
    waiting = [
        m for m in teams.unstarted(roster, started, ctx.now) if not any(a.startswith(f"a{m.name}-") for a in started)
    ]
    if not waiting:
        return None
    names = ", ".join(m.name for m in waiting[:3]) + (f" (+{len(waiting) - 3})" if len(waiting) > 3 else "")
    verb = "has" if len(waiting) == 1 else "have"
    since = min((m.joined_at for m in waiting if m.joined_at is not None), default=None)
    return Gate(
        kind="roster",
        text=f"{names} {verb} not started (teammate parked before its first write)",
        since=since,
        source="roster",
    )


def gate(
    reading: SessionReading, index: Index, files: SessionFiles | None, summary: Summary | None, ctx: HarnessContext
) -> Gate | None:
    """The standing gate of a session, if the store records one."""
    found, decided = pid_gate(files, summary)
    if found is None and not decided and summary is not None:
        found = transcript_gate(summary)
    if found is None and files is not None and files.transcript is not None and reading.parent_id is None:
        found = roster_gate(index, files, reading.last_active_at, ctx)
    return found
