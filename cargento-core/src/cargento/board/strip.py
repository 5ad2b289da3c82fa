"""The harness strip: one entry per installed plugin, loaded or not, with its count and fault."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

import attrs

from cargento.board.document import BoardHarness, BoardPlugin
from cargento.board.redaction import redact_harness
from cargento.board.revision import harness_digest
from cargento.models import Discovery, HarnessInfo
from cargento.plugins import PluginRecord, Registry

__all__ = ["HarnessStrip", "discovered_entry", "fault_line", "finish_strip", "plugin_of", "undiscovered_entry"]


def plugin_of(record: PluginRecord) -> BoardPlugin:
    return BoardPlugin(name=record.dist or record.module, version=record.version, status=record.status)


def undiscovered_entry(info: HarnessInfo, plugin: BoardPlugin, error: str) -> BoardHarness:
    """The entry of a loaded harness whose ``discover`` faulted."""
    return BoardHarness(
        key=info.key,
        label=info.label,
        discovered=False,
        sessions=0,
        plugin=plugin,
        error=error,
        turn_end_observable=info.turn_end_observable,
        reports_waits=info.reports_waits,
        wait_coverage=info.wait_coverage,
        resumable=info.resumable,
        prompt_as_goal=info.prompt_as_goal,
        mark=info.mark,
        process_coverage=info.process.coverage if info.process else "",
    )


def discovered_entry(info: HarnessInfo, plugin: BoardPlugin, discovery: Discovery) -> BoardHarness:
    """The entry of a loaded harness after discovery; its count is filled in by :func:`finish_strip`."""
    return BoardHarness(
        key=info.key,
        label=info.label,
        discovered=any(loc.status == "present" for loc in discovery.locations) or bool(discovery.sessions),
        sessions=0,
        plugin=plugin,
        error=None,
        turn_end_observable=info.turn_end_observable,
        reports_waits=info.reports_waits,
        resumable=info.resumable,
        prompt_as_goal=info.prompt_as_goal,
        mark=info.mark,
        wait_coverage=info.wait_coverage,
        locations=discovery.locations,
        problems=discovery.problems,
        process_coverage=info.process.coverage if info.process else "",
    )


def fault_line(registry: Registry, key: str) -> str | None:
    """``hook: message`` of the harness's newest fault, or ``None``."""
    last = registry.last_fault(key)
    return None if last is None else f"{last.hook}: {last.message}"


def finish_strip(
    entries: Iterable[BoardHarness], per_harness: Mapping[str, int], registry: Registry
) -> list[BoardHarness]:
    """The strip as published: each loaded harness's count of rows on the board (*per_harness*,
    by harness key) and its newest fault (unless its entry already carries an error), then an
    entry per plugin that did not load, every text redacted."""
    return HarnessStrip().finish(entries, per_harness, registry)[0]


class _Published(NamedTuple):
    """One loaded harness's strip entry as last published, and what it was made from."""

    entry: BoardHarness
    sessions: int
    fault: str | None
    published: BoardHarness
    digest: int


class HarnessStrip:
    """:func:`finish_strip` across builds: a loaded harness whose entry (the very object), count
    and newest fault are those of the last build publishes the entry published then, with its
    content digest (:func:`cargento.board.revision.harness_digest`) kept beside it, so a build
    after one event or one append neither copies, redacts nor hashes the other harnesses'
    entries again."""

    def __init__(self) -> None:
        #: By harness key.
        self._last: dict[str, _Published] = {}

    def finish(
        self, entries: Iterable[BoardHarness], per_harness: Mapping[str, int], registry: Registry
    ) -> tuple[list[BoardHarness], list[int]]:
        """The strip as :func:`finish_strip` publishes it, and each entry's digest."""
        last = self._last
        kept: dict[str, _Published] = {}
        strip: list[BoardHarness] = []
        digests: list[int] = []
        for h in entries:
            sessions = per_harness.get(h.key, 0)
            fault = h.error or fault_line(registry, h.key)
            was = last.get(h.key)
            if was is None or was.entry is not h or was.sessions != sessions or was.fault != fault:
                published = redact_harness(attrs.evolve(h, sessions=sessions, error=fault))
                was = _Published(h, sessions, fault, published, harness_digest(published))
            kept[h.key] = was
            strip.append(was.published)
            digests.append(was.digest)
        self._last = kept
        for name, rec in registry.records.items():
            if rec.status != "loaded" and name not in registry.harnesses:
                failed = redact_harness(
                    BoardHarness(
                        key=rec.name,
                        label=rec.name,
                        discovered=False,
                        sessions=0,
                        plugin=plugin_of(rec),
                        error=rec.error,
                    )
                )
                strip.append(failed)
                digests.append(harness_digest(failed))
        return strip, digests
