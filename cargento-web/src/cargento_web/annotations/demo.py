"""``--demo``: a few annotated sessions, so every surface of the feature shows something.

Seeded once, against the first board the demo builds, so the words sit on sessions the demo
really produces: a session whose harness records your prompts (``prompt_as_goal``: Claude Code)
with a goal and three expected outcome lines (one added from its prompt) saved before its latest
prompt, so a later direction shows; a session of a second such harness (Codex) with a goal
adopted from its prompt in a second revision; a session of a harness without prompts as goals
with lines only; a discard record; and words against a session that has left the board.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from cargento.board import Board, BoardSession

from cargento_web.annotations.store import AnnotationStore, Change, Draft

__all__ = ["OFF_BOARD_SID", "seed"]

#: The session the demo's off-board words are typed against (no demo store produces it).
OFF_BOARD_SID = "0f0b0a4d-5e55-4c0d-9e1a-d3m0ffb0a4d0"


def _first(board: Board, harnesses: set[str], *, skip: set[str]) -> BoardSession | None:
    return next((s for s in board.sessions if s.harness in harnesses and s.key not in skip), None)


def _save(store: AnnotationStore, s: BoardSession, change: Change, at: datetime) -> None:
    store.annotate(s.harness, s.session_id, change, at)


def seed(store: AnnotationStore, board: Board, now: datetime) -> list[str]:
    """Type words against a few of *board*'s sessions; the keys annotated (the discard included)."""
    used: set[str] = set()
    hour_ago = now - timedelta(hours=1)
    prompting = {h.key for h in board.harnesses if h.prompt_as_goal}
    first = _first(board, prompting, skip=used)
    if first is not None:
        used.add(first.key)
        _save(
            store,
            first,
            Change(
                set_goal=True,
                goal="Land the rate-limit middleware with its tests, without touching the public API",
                lines=(
                    Draft(text="Requests over the limit get 429 with Retry-After"),
                    Draft(text="The existing API tests still pass"),
                    Draft(text="No new dependency", entry="your prompt"),
                ),
                origins_sent=True,
            ),
            hour_ago,
        )
    second = _first(board, prompting - {first.harness} if first is not None else prompting, skip=used)
    if second is not None:
        used.add(second.key)
        _save(store, second, Change(set_goal=True, goal="Migrate the settings loader to TOML"), hour_ago)
        _save(
            store,
            second,
            Change(
                set_goal=True,
                goal="Migrate the settings loader to TOML and keep reading the old INI files",
                lines=(Draft(text="Old INI files are read and a deprecation note is logged"),),
                expected_revision=1,
                goal_source="prompt",
            ),
            hour_ago + timedelta(minutes=10),
        )
    other = next((s for s in board.sessions if s.harness not in prompting and s.key not in used), None)
    if other is not None:
        used.add(other.key)
        _save(
            store,
            other,
            Change(lines=(Draft(text="A short summary of what changed"), Draft(text="Nothing pushed"))),
            hour_ago,
        )
    discard = next((s for s in board.sessions if s.key not in used), None)
    if discard is not None:
        used.add(discard.key)
        _save(store, discard, Change(set_goal=True, goal="An earlier idea"), hour_ago - timedelta(hours=1))
        _save(store, discard, Change(clear=True), hour_ago)
    off_harness = first.harness if first is not None else board.sessions[0].harness
    store.annotate(
        off_harness,
        OFF_BOARD_SID,
        Change(
            set_goal=True, goal="Write the release notes for 0.9", lines=(Draft(text="Every breaking change named"),)
        ),
        now - timedelta(days=1),
    )
    used.add(f"{off_harness}:{OFF_BOARD_SID}")
    return sorted(used)
