"""The board as fleet metrics: a few gauges and counters with bounded labels, computed from
one board, the same for ``/metrics`` and the OTLP push.

Labels are ``harness``, ``state``, ``project`` (the board's two-segment label), ``window``
(a quota window's name) and ``outcome`` (a notification's), never a prompt, a title or a path.
At most :data:`PROJECT_LIMIT` project labels are published, the projects with the most
sessions first; the rest are summed under ``other``. A figure nobody measured is left out, so
a missing series means unknown, never zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal

import attrs
from cargento.board import Board, BoardSession
from cargento.sharedmethods import shared_methods

__all__ = ["PROJECT_LIMIT", "SERIES", "Sample", "board_samples", "project_labels"]

#: Most distinct ``project`` label values published; beyond it, ``other``.
PROJECT_LIMIT = 50
#: Most quota windows published per harness.
WINDOW_LIMIT = 8
OTHER = "other"
NO_PROJECT = "none"
STATES = ("working", "needs_input", "idle", "starting")
#: Every series name this module can publish (a counter gains ``_total`` in the text format).
SERIES = (
    "cargento_sessions",
    "cargento_waits_open",
    "cargento_wait_age_seconds",
    "cargento_output_tokens_per_minute",
    "cargento_turn_elapsed_seconds",
    "cargento_quota_used_ratio",
    "cargento_store_read_faults",
    "cargento_notifications",
)


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Sample:
    name: str
    kind: Literal["gauge", "counter"]
    help: str
    labels: Mapping[str, str]
    value: float


def project_labels(sessions: Iterable[BoardSession]) -> dict[str, str]:
    """Project -> published label: the :data:`PROJECT_LIMIT` busiest keep their own."""
    counts = Counter(s.project or NO_PROJECT for s in sessions)
    ranked = sorted(counts, key=lambda p: (-counts[p], p))
    return {p: (p if i < PROJECT_LIMIT else OTHER) for i, p in enumerate(ranked)}


def board_samples(
    board: Board,
    *,
    faults: Mapping[str, int] | None = None,
    raised: Mapping[str, int] | None = None,
) -> list[Sample]:
    """Every sample of *board*; *faults* are read faults by harness since start, *raised* the
    notifications raised by outcome since start."""
    out: list[Sample] = []
    now = board.generated_at
    readable = [h.key for h in board.harnesses if h.plugin.status == "loaded" and not h.error]
    counts: Counter[tuple[str, str]] = Counter((s.harness, str(s.state)) for s in board.sessions)
    for harness in readable:
        for state in STATES:
            out.append(
                Sample(
                    name="cargento_sessions",
                    kind="gauge",
                    help="Sessions on the board by harness and state (harnesses that could be read).",
                    labels={"harness": harness, "state": state},
                    value=counts.get((harness, state), 0),
                )
            )
    labels = project_labels(board.sessions)
    waits: Counter[str] = Counter()
    wait_age: dict[tuple[str, str], float] = {}
    rate: dict[tuple[str, str], float] = {}
    elapsed: dict[tuple[str, str], float] = {}
    for s in board.sessions:
        key = (s.harness, labels[s.project or NO_PROJECT])
        if s.state == "needs_input":
            waits[s.harness] += 1
            since = s.waiting.since if s.waiting else None
            if since is not None:
                wait_age[key] = max(wait_age.get(key, 0.0), max(0.0, (now - since).total_seconds()))
        if s.output_tokens_per_min is not None:
            rate[key] = rate.get(key, 0.0) + s.output_tokens_per_min
        if s.state == "working" and s.turn is not None:
            elapsed[key] = max(elapsed.get(key, 0.0), s.turn.elapsed_s)
    for harness in readable:
        out.append(
            Sample(
                name="cargento_waits_open",
                kind="gauge",
                help="Sessions waiting on you, by harness (only harnesses that can report a wait).",
                labels={"harness": harness},
                value=waits.get(harness, 0),
            )
        )
    per_project = (
        ("cargento_wait_age_seconds", "How long the longest open wait has stood, by harness and project.", wait_age),
        (
            "cargento_output_tokens_per_minute",
            "Output tokens per minute over the last ten minutes, summed over measured sessions.",
            rate,
        ),
        ("cargento_turn_elapsed_seconds", "The longest running turn's elapsed time, by harness and project.", elapsed),
    )
    for name, help_text, values in per_project:
        out.extend(
            Sample(name=name, kind="gauge", help=help_text, labels={"harness": h, "project": p}, value=round(v, 3))
            for (h, p), v in sorted(values.items())
        )
    quota: dict[tuple[str, str], float] = {}
    for s in board.sessions:
        for r in s.rate_limits:
            key = (s.harness, r.name[:40])
            if key in quota or sum(1 for h, _ in quota if h == s.harness) < WINDOW_LIMIT:
                quota[key] = max(quota.get(key, 0.0), r.used_percent / 100)
    for (harness, window), value in sorted(quota.items()):
        out.append(
            Sample(
                name="cargento_quota_used_ratio",
                kind="gauge",
                help="Share of a quota window spent, as the harness last recorded it.",
                labels={"harness": harness, "window": window},
                value=value,
            )
        )
    for harness in sorted(faults or {}):
        out.append(
            Sample(
                name="cargento_store_read_faults",
                kind="counter",
                help="Store read faults by harness since the dashboard started.",
                labels={"harness": harness},
                value=(faults or {})[harness],
            )
        )
    for outcome in sorted(raised or {}):
        out.append(
            Sample(
                name="cargento_notifications",
                kind="counter",
                help="Notifications raised since the dashboard started, by what became of them.",
                labels={"outcome": outcome[:32]},
                value=(raised or {})[outcome],
            )
        )
    return out
