"""A Droid :class:`~cargento_harness_droid.transcript.Transcript` mapped to a core reading."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from cargento.evidence import shown_path
from cargento.labels import clip
from cargento.models import Evidence, HarnessContext, Instruction, SessionReading, SessionRef
from cargento.timestamps import newest_plausible

from cargento_harness_droid.transcript import Transcript

__all__ = ["TITLE_CHARS", "reading"]

TITLE_CHARS = 80


def _project_fallback(path: Path) -> str | None:
    """The folder a session file sits in, as a label when the header names no cwd."""
    parent = path.parent
    if parent.name in ("sessions", "projects"):
        return None
    return parent.name or None


def reading(ref: SessionRef, transcript: Transcript, mtime: datetime | None, ctx: HarnessContext) -> SessionReading:
    """Build the reading of one session from its summary and its file's mtime."""
    header = transcript.header
    title = clip(header.title, TITLE_CHARS) if header and header.title else None
    if not title and transcript.first_prompt:
        title = clip(transcript.first_prompt, TITLE_CHARS)
    cwd = header.cwd if header else None
    instruction = (
        Instruction(text=transcript.prompt, source="prompt", at=transcript.prompt_at) if transcript.prompt else None
    )
    return SessionReading(
        ref=ref,
        title=title or None,
        cwd=cwd,
        project=None if cwd else _project_fallback(Path(ref.path)),
        started_at=transcript.first_at,
        last_active_at=newest_plausible(ctx.now, transcript.last_at, mtime),
        # Droid writes no turn end, so the state stays on recency: boundaries are not
        # recorded, only prompts, which still time the current turn.
        turn=transcript.clock.evidence(boundaries_recorded=False),
        thinking=transcript.phase == "model",
        last_tool=transcript.last_tool,
        instruction=instruction,
        evidence=(
            Evidence(
                reading="state",
                signal="store record",
                source=shown_path(ref.path, str(ctx.home)),
                observed_at=transcript.last_at,
                said="the newest message's timestamp (Droid writes no turn end, so recency decides)",
            ),
        )
        if transcript.last_at is not None
        else (),
        unknown_records=transcript.drift.snapshot(),
    )
