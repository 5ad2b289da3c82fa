"""The account of a session a reading sends: bounded, redacted, and per harness.

What is read depends on what the harness lets Cargento see:

* every harness: the published instruction (your latest prompt, with its time), the tracked
  tasks, the running and finished subagents (dispatches) and the gate the session stands at;
* a harness whose plugin keeps a work record (the ``work_record`` hook: today the checks a
  Claude Code session ran and the files it wrote, and a Pi session's work results): also that
  record, each entry with at most the last 180 characters of its output, as the plugin read it;
  only when tool output is allowed for the provider's destination.

Everything goes through :func:`cargento.redact.redact` before it is counted, and the entries are
kept newest first until the byte budget the prompt leaves is spent. The harness store is only
read by its own plugin (a bounded tail), never written.
"""

from __future__ import annotations

from typing import Protocol

import attrs
from cargento.board import BoardSession
from cargento.models import WorkRecord
from cargento.redact import redact
from cargento.sharedmethods import shared_methods

__all__ = ["Account", "WorkSource", "build_account"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Account:
    #: One line per entry, oldest first, already redacted.
    entries: tuple[str, ...]
    #: Whether the session's work (checks, files, results) was part of what could be sent.
    reads_work: bool
    #: Whether tool output is among the entries.
    tool_output: bool
    #: How many of the entries (the oldest) are the session's work record.
    work_count: int = 0
    #: What was left out and why, for the disclosure.
    notes: tuple[str, ...] = ()

    def fit(self, budget: int) -> tuple[list[str], int]:
        """The newest entries whose UTF-8 size fits *budget*, oldest first, and how many were left out."""
        kept: list[str] = []
        used = 0
        for entry in reversed(self.entries):
            size = len(entry.encode("utf-8")) + 1
            if used + size > budget:
                break
            kept.append(entry)
            used += size
        kept.reverse()
        return kept, len(self.entries) - len(kept)


def _clip(text: str, limit: int = 400) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def _board_entries(session: BoardSession) -> list[str]:
    entries: list[str] = []
    for task in session.tasks:
        entries.append(f"task ({task.status}): {_clip(task.subject)}")
    for sub in session.subagents:
        entries.append(f"dispatch: {_clip(sub.name)} ({'running' if sub.running else 'no longer running'})")
    if session.waiting is not None:
        entries.append(f"gate ({session.waiting.kind}): {_clip(session.waiting.text or 'waiting on you')}")
    if session.instruction is not None:
        at = session.instruction.at.isoformat() if session.instruction.at else "time unknown"
        entries.append(f"instruction ({at}): {_clip(session.instruction.text, 1200)}")
    return entries


class WorkSource(Protocol):
    """Where a session's work record comes from (:class:`.harnesses.Declared`)."""

    def reads_work(self, harness: str) -> bool: ...

    def work(self, session: BoardSession, tool_output: bool) -> WorkRecord | None: ...


def build_account(session: BoardSession, work: WorkSource, *, tool_output: bool) -> Account:
    """The redacted account of *session* (see the module docstring)."""
    entries = _board_entries(session)
    notes: list[str] = []
    lines: list[str] = []
    reads_work = work.reads_work(session.harness)
    if reads_work and not tool_output:
        notes.append("tool output was not sent: it is not allowed for this destination")
    elif reads_work:
        found = work.work(session, True)
        if found is None:
            notes.append("the session's work could not be read: its harness plugin returned no work record")
        else:
            lines = list(found.lines)
            notes.extend(found.notes)
    if not reads_work:
        notes.append(
            "Cargento can't read work from this harness: only instructions, dispatches and gate decisions are sent"
        )
    return Account(
        entries=tuple(redact(e) for e in (lines + entries)),
        reads_work=reads_work,
        tool_output=bool(lines),
        work_count=len(lines),
        notes=tuple(notes),
    )
