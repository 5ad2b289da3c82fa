"""Reading one conversation database: steps incrementally, trajectory and model bounded.

Every open goes through :func:`cargento.readers.open_ro`, which creates and writes nothing beside
the store (a WAL database is read in place with a read-only ``-shm``, ``immutable`` when it has no
frame, or from core's private snapshot when its ``-wal`` holds frames but its ``-shm`` is gone).
When an open or a query fails while the ``-wal`` holds frames, the conversation is skipped with a
:class:`~cargento.HarnessError` rather than read stale from its main file alone.

Steps are read incrementally: the newest :data:`DETAIL_STEPS` steps are kept per step and read
again on every refresh (a step's status and usage can be written after it appears); older steps
are folded into running totals once, and read again only when the rows below the fold change.
"""

from __future__ import annotations

import os
import sqlite3
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
from cargento.drift import DriftCounter, UnknownRecord
from cargento.errors import HarnessError
from cargento.models import HarnessContext
from cargento.readers import open_ro
from cargento.readers.sqlite import tables, wal_has_frames
from cargento.sharedmethods import shared_methods

from cargento_harness_antigravity.metadata import (
    MODEL_TAIL_BYTES,
    RESPONSE_STEP,
    StepFacts,
    Trajectory,
    model_name,
    step_facts,
    trajectory,
)

__all__ = ["DETAIL_STEPS", "Conversation", "read_conversation", "read_trajectory"]

DETAIL_STEPS = 400
_BATCH = 256


@shared_methods
@attrs.define(repr=False, eq=False)
class Conversation:
    """What one conversation database holds, as far as it could be read."""

    steps: list[StepFacts] = attrs.Factory(list)
    #: Output tokens of steps folded out of :attr:`steps` (older than the newest few hundred).
    settled_tokens: int = 0
    settled_rows: int = 0
    settled_max: int = -1
    settled_responses: int = 0
    settled_broken: int = 0
    #: Schema drift among the folded steps: name -> steps (see :attr:`StepFacts.unknown`).
    settled_unknown: dict[str, int] = attrs.Factory(dict)
    trajectory: Trajectory = attrs.Factory(Trajectory)
    model: str | None = None
    #: Readings that could not be made ("Source not fully read").
    missing: tuple[str, ...] = ()

    def unknown_records(self) -> tuple[UnknownRecord, ...]:
        """What this build did not understand in the steps and the trajectory (schema drift)."""
        drift = DriftCounter()
        for name, n in self.settled_unknown.items():
            for _ in range(n):
                drift.field(name)
        for step in self.steps:
            for name in step.unknown:
                drift.field(name)
        for name in self.trajectory.unknown:
            drift.field(name)
        return drift.snapshot()

    def broken_steps(self) -> int:
        return self.settled_broken + sum(1 for s in self.steps if s.broken)

    def responses(self) -> int:
        return self.settled_responses + sum(1 for s in self.steps if s.step_type == RESPONSE_STEP)


@contextmanager
def _connection(path: Path) -> Iterator[sqlite3.Connection]:
    try:
        conn = open_ro(path)
    except HarnessError as exc:
        raise _skip(path, exc) from exc
    try:
        yield conn
    except (sqlite3.Error, HarnessError) as exc:
        raise _skip(path, exc) from exc
    finally:
        conn.close()


def _skip(path: Path, exc: Exception) -> HarnessError:
    if wal_has_frames(path):
        return HarnessError(
            f"conversation {path.stem}: read-only open failed while its WAL holds frames; "
            f"skipped rather than read stale ({exc})"
        )
    return exc if isinstance(exc, HarnessError) else HarnessError(f"unreadable conversation {path.stem}: {exc}")


def read_trajectory(path: Path, ctx: HarnessContext) -> Trajectory | None:
    """The trajectory metadata of the conversation at *path* (cached by file stat), or
    ``None`` when it cannot be read."""
    try:
        stamp = _stamp(path)
    except OSError:
        return None
    key = f"trajectory:{path}"
    cached = ctx.cache.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]  # type: ignore[no-any-return]
    try:
        with _connection(path) as conn:
            found = _trajectory(conn, path.stem) if "trajectory_metadata_blob" in tables(conn, name=path.name) else None
    except HarnessError:
        return None
    ctx.cache.set(key, (stamp, found))
    return found


def _trajectory(conn: sqlite3.Connection, own_id: str) -> Trajectory:
    row = conn.execute("SELECT data FROM trajectory_metadata_blob WHERE id = 'main'").fetchone()
    return trajectory(row[0] if row else None, own_id)


def _stamp(path: Path) -> tuple[int, ...]:
    st = os.stat(path)
    stamp = [st.st_ino, st.st_size, st.st_mtime_ns]
    try:
        wal = os.stat(str(path) + "-wal")
        stamp += [wal.st_size, wal.st_mtime_ns]
    except OSError:
        stamp += [-1, -1]
    return tuple(stamp)


def read_conversation(path: Path, ctx: HarnessContext) -> Conversation:
    """Read the conversation at *path*, reusing what the previous read folded.

    :raises HarnessError: when the database cannot be opened or queried.
    """
    key = f"conversation:{path}"
    try:
        inode = os.stat(path).st_ino
    except OSError as exc:
        raise HarnessError(f"conversation {path.stem} is gone") from exc
    cached = ctx.cache.get(key)
    prior: Conversation = cached[1] if cached is not None and cached[0] == inode else Conversation()
    with _connection(path) as conn:
        present = tables(conn, name=path.name)
        missing: list[str] = []
        if "steps" in present:
            steps = _read_steps(conn, prior)
        else:
            steps = Conversation()
            missing.append("steps (prompts, tools, output tokens)")
        if "trajectory_metadata_blob" in present:
            steps.trajectory = _trajectory(conn, path.stem)
            if steps.trajectory.broken:
                missing.append("trajectory metadata (subagent link)")
        else:
            missing.append("trajectory metadata (subagent link)")
        if "gen_metadata" in present:
            row = conn.execute(
                "SELECT substr(data, -?) FROM gen_metadata ORDER BY idx DESC LIMIT 1", (MODEL_TAIL_BYTES,)
            ).fetchone()
            steps.model = model_name(row[0]) if row else None
    broken = steps.broken_steps()
    if broken:
        missing.append(f"metadata of {broken} step{'s' if broken != 1 else ''}")
    steps.missing = tuple(missing)
    ctx.cache.set(key, (inode, steps))
    return steps


def _read_steps(conn: sqlite3.Connection, prior: Conversation) -> Conversation:
    """Fold the rows below the previous fold only when they are unchanged, then read the rest."""
    current = prior
    if prior.settled_max >= 0:
        count = conn.execute("SELECT count(*) FROM steps WHERE idx <= ?", (prior.settled_max,)).fetchone()[0]
        if count != prior.settled_rows:
            current = Conversation()
    state = attrs.evolve(current, steps=[], missing=(), settled_unknown=dict(current.settled_unknown))
    cursor = conn.execute(
        "SELECT idx, step_type, status, metadata FROM steps WHERE idx > ? ORDER BY idx", (state.settled_max,)
    )
    window: deque[StepFacts] = deque()
    while True:
        rows = cursor.fetchmany(_BATCH)
        if not rows:
            break
        for row in rows:
            facts = step_facts(*row)
            if facts is None:
                continue
            window.append(facts)
        while len(window) > DETAIL_STEPS:
            _settle(state, window.popleft())
    state.steps = list(window)
    return state


def _settle(state: Conversation, step: StepFacts) -> None:
    state.settled_rows += 1
    state.settled_max = max(state.settled_max, step.idx)
    if step.step_type == RESPONSE_STEP:
        state.settled_responses += 1
        state.settled_tokens += step.output_tokens or 0
    if step.broken:
        state.settled_broken += 1
    for name in step.unknown:
        state.settled_unknown[name] = state.settled_unknown.get(name, 0) + 1
