"""One rollout's cached reading: a backward walk once, then appended records only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import attrs
from cargento.cache import HarnessCache
from cargento.errors import HarnessError
from cargento.readers import FileIdentity, JsonlFollower, open_regular, walk_back, why
from cargento.sharedrepr import shared_repr

from cargento_harness_codex.meta import RolloutMeta
from cargento_harness_codex.records import Fact, fact_from_line, fact_from_record
from cargento_harness_codex.summary import Summary, walk_summary

__all__ = ["MAX_LINE_BYTES", "Rollout", "complete_end", "load", "walk_facts"]

#: Lines longer than this (encrypted reasoning, huge tool output) are skipped unread.
MAX_LINE_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024


def complete_end(path: str, size: int) -> int:
    """The offset just past the last newline before *size* (0 when there is none)."""
    with open_regular(path) as fh:
        pos = size
        while pos > 0:
            step = min(_CHUNK, pos)
            pos -= step
            fh.seek(pos)
            block = fh.read(step)
            cut = block.rfind(b"\n")
            if cut >= 0:
                return pos + cut + 1
    return 0


def walk_facts(path: str, end: int) -> Iterator[Fact]:
    """The facts of the complete lines before *end*, newest first, with bounded memory."""
    for line in walk_back(path, end=end, max_line_bytes=MAX_LINE_BYTES):
        fact = fact_from_line(line)
        if fact is not None:
            yield fact


@shared_repr
@attrs.define(repr=False, eq=False)
class Rollout:
    """A rollout's identity, its follower positioned after the last line read, and its summary."""

    path: str
    meta: RolloutMeta
    follower: JsonlFollower
    summary: Summary
    #: Bytes read by the cold walk (kept for the benchmark and diagnostics).
    walked_to: int = 0

    @classmethod
    def cold(cls, path: str, meta: RolloutMeta, now: datetime) -> Rollout:
        """Walk the file backward from its last complete line and position the follower there."""
        identity = FileIdentity.of(path)
        end = complete_end(path, identity.size)
        summary = walk_summary(meta, walk_facts(path, end), now)
        follower = JsonlFollower(path, max_line_bytes=MAX_LINE_BYTES)
        follower.offset = end
        follower.identity = identity
        return cls(path=path, meta=meta, follower=follower, summary=summary, walked_to=end)

    def refresh(self) -> bool:
        """Fold appended records in; return False when the file was replaced (walk again)."""
        if not self.follower.changed():
            return True
        records = self.follower.poll()
        if self.follower.reset:
            return False
        for record in records:
            self.summary.apply(fact_from_record(record))
        return True


def load(cache: HarnessCache, path: str, meta: RolloutMeta, now: datetime) -> Rollout:
    """The current reading of one rollout, from the cache when possible."""
    key = f"rollout:{path}"
    try:
        current = cache.get(key)
        if isinstance(current, Rollout) and current.meta == meta and current.refresh():
            cache.set(key, current)
            return current
        fresh = Rollout.cold(path, meta, now)
    except OSError as exc:
        cache.pop(key)
        raise HarnessError(f"cannot read {path}: {why(exc)}") from exc
    cache.set(key, fresh)
    return fresh
