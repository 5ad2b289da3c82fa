"""Helpers a harness reader uses to record the evidence it decided on (``SessionReading.evidence``).

A reader records only what it already decided, and only clock-independent facts (its reading
is cached by fingerprint): which record ended or opened the turn, a wait it found, a claim it
did not believe and why. Core adds its own items (the state precedence, the recency rule, the
model hook's answer) in :mod:`cargento.board.evidence`.
"""

from __future__ import annotations

import os

from cargento.models import Evidence, TurnEvidence

__all__ = ["shown_path", "turn_record"]


def shown_path(path: str, home: str) -> str:
    """*path* with the home directory written ``~`` (the page shows where, not whose)."""
    root = home.rstrip("/\\")
    if root and (path == root or path.startswith((root + os.sep, root + "/"))):
        return "~" + path[len(root) :]
    return path


def turn_record(turn: TurnEvidence, source: str, *, ended: str, opened: str) -> tuple[Evidence, ...]:
    """The store record the turn evidence rests on: *ended* says which record ends a turn in
    this store (``a task_complete event``), *opened* which one starts it. Nothing when the
    store records no turn boundary (``unknown``): core's recency rule speaks for that."""
    if turn.state == "ended":
        return (
            Evidence(
                reading="state",
                signal="store record",
                source=source,
                observed_at=turn.ended_at,
                said=f"{ended}: the turn ended",
            ),
        )
    if turn.state == "open":
        return (
            Evidence(
                reading="state",
                signal="store record",
                source=source,
                observed_at=turn.started_at,
                said=f"{opened}, and no record has ended it",
            ),
        )
    return ()
