"""Incremental reading of one session file through the plugin cache."""

from __future__ import annotations

from pathlib import Path

from cargento.errors import HarnessDataMissing
from cargento.models import HarnessContext
from cargento.readers import JsonlFollower

from cargento_harness_droid.transcript import Transcript

__all__ = ["follow"]


def follow(path: Path, ctx: HarnessContext) -> Transcript:
    """The summary of *path*, updated with the records appended since the previous call.

    A truncated, rotated or replaced file is summarised again from its first line.
    """
    key = f"file:{path}"
    entry = ctx.cache.get(key)
    if entry is None:
        entry = (JsonlFollower(path), Transcript())
        ctx.cache.set(key, entry)
    follower: JsonlFollower = entry[0]
    transcript: Transcript = entry[1]
    try:
        records = follower.poll()
    except OSError as exc:
        ctx.cache.pop(key)
        raise HarnessDataMissing(f"{path.name}: {exc.strerror or exc}") from exc
    if follower.reset:
        transcript = Transcript()
        ctx.cache.set(key, (follower, transcript))
    for record in records:
        transcript.apply(record)
    return transcript
