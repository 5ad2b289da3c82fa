"""Incremental reading of one chat file through the plugin cache."""

from __future__ import annotations

from pathlib import Path

from cargento.errors import HarnessDataMissing
from cargento.models import HarnessContext
from cargento.readers import JsonlFollower

from cargento_harness_gemini.transcript import ChatState

__all__ = ["follow"]


def follow(path: Path, ctx: HarnessContext) -> ChatState:
    """The state of *path*, updated with the lines appended since the previous call.

    A truncated, rotated or replaced file is read again from its first line; a half-written
    last line is left for the next call.
    """
    key = f"chat:{path}"
    entry = ctx.cache.get(key)
    if entry is None:
        entry = (JsonlFollower(path), ChatState())
        ctx.cache.set(key, entry)
    follower: JsonlFollower = entry[0]
    state: ChatState = entry[1]
    try:
        records = follower.poll()
    except OSError as exc:
        ctx.cache.pop(key)
        raise HarnessDataMissing(f"{path.name}: {exc.strerror or exc}") from exc
    if follower.reset:
        state = ChatState()
        ctx.cache.set(key, (follower, state))
    for record in records:
        state.apply(record)
    return state
