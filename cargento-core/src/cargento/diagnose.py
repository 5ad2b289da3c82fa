"""``cargento --diagnose``: every plugin, every path searched, and what was found there."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from cargento import serde
from cargento.board import BoardBuilder
from cargento.models import StoreLocation
from cargento.plugins import PluginRecord, Registry

__all__ = ["Report", "diagnose", "render_text"]


@attrs.frozen(kw_only=True)
class LocationReport:
    path: str
    role: str
    origin: str
    #: ``missing``, ``present but unreadable``, ``read, N sessions`` or ``read, no recent sessions``.
    found: str
    sessions: int
    detail: str | None = None


@attrs.frozen(kw_only=True)
class HarnessReport:
    key: str
    label: str
    plugin: PluginRecord
    locations: tuple[LocationReport, ...] = ()
    problems: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()
    fault_count: int = 0


@attrs.frozen(kw_only=True)
class Report:
    core_version: str
    generated_at: datetime
    window_hours: float
    relocation: Mapping[str, str]
    plugins: tuple[PluginRecord, ...]
    harnesses: tuple[HarnessReport, ...]
    ok: bool


def _found(loc: StoreLocation, count: int) -> str:
    if loc.status == "missing":
        return "missing"
    if loc.status == "unreadable":
        return "present but unreadable"
    if count:
        return f"read, {count} session{'s' if count != 1 else ''}"
    return "read, no recent sessions"


#: Variables that move many stores at once, shown whether or not a plugin declares them.
_GENERIC_RELOCATION = ("XDG_DATA_HOME", "XDG_CONFIG_HOME")


def diagnose(registry: Registry, builder: BoardBuilder, *, now: datetime | None = None) -> Report:
    """Run discovery for every loaded harness and describe what it found."""
    from cargento import __version__

    moment = now or builder.clock()
    builder.build(now=moment)
    reports = []
    for key in registry.loaded():
        info = registry.harnesses[key]
        discovery = builder.last_discovery.get(key)
        counts: dict[str, int] = {}
        locations: list[LocationReport] = []
        if discovery is not None:
            ctx = builder.context(key, now=moment)
            for ref in discovery.sessions:
                if ref.modified_at is None or ctx.in_window(ref.modified_at):
                    counts[ref.location] = counts.get(ref.location, 0) + 1
            for loc in discovery.locations:
                n = counts.get(loc.path, 0)
                locations.append(
                    LocationReport(path=loc.path, role=loc.role, origin=loc.origin, found=_found(loc, n), sessions=n, detail=loc.detail)
                )
        faults = registry.faults.get(key, [])
        reports.append(
            HarnessReport(
                key=key,
                label=info.label,
                plugin=registry.records[key],
                locations=tuple(locations),
                problems=discovery.problems if discovery else (),
                faults=tuple(f"{f.hook}: {f.message}" for f in faults[-5:]),
                fault_count=registry.fault_counts.get(key, 0),
            )
        )
    declared = (*registry.relocation_variables(), *_GENERIC_RELOCATION)
    relocation = {k: builder.env[k] for k in declared if builder.env.get(k)}
    for k in ("CARGENTO_LOAD_PLUGINS", "CARGENTO_BLOCK_PLUGINS", "CARGENTO_HOME"):
        if builder.env.get(k):
            relocation[k] = builder.env[k]
    return Report(
        core_version=__version__,
        generated_at=moment,
        window_hours=builder.window_hours,
        relocation=relocation,
        plugins=tuple(registry.records.values()),
        harnesses=tuple(reports),
        # A harness whose read the watchdog had to abandon is a store that could not be read.
        ok=not registry.failed() and not builder.stuck,
    )


def render_json(report: Report) -> bytes:
    return serde.dumps(report, indent=True)


def render_text(report: Report, *, verbose: bool = False) -> str:
    lines = [f"cargento-core {report.core_version} · window {report.window_hours:g} h"]
    lines.append("")
    lines.append("Plugins (entry-point group cargento.harness):")
    for rec in report.plugins:
        dist = f"{rec.dist or rec.module or '?'} {rec.version or ''}".strip()
        line = f"  {rec.name:<12} {rec.status:<13} {dist}"
        if rec.error:
            line += f" · {rec.error}"
        lines.append(line)
        if verbose and rec.traceback:
            lines.extend("      " + t for t in rec.traceback.rstrip().splitlines())
    if not report.plugins:
        lines.append("  (none installed: pip install 'cargento[all]')")
    lines.append("")
    lines.append("Relocation variables in effect:")
    if report.relocation:
        lines.extend(f"  {k}={v}" for k, v in sorted(report.relocation.items()))
    else:
        lines.append("  (none set: platform defaults apply)")
    for h in report.harnesses:
        lines.append("")
        lines.append(f"{h.label} [{h.key}]")
        for loc in h.locations:
            extra = f" ({loc.detail})" if loc.detail else ""
            lines.append(f"  {loc.role:<10} {loc.path} · {loc.origin} · {loc.found}{extra}")
        for p in h.problems:
            lines.append(f"  skipped: {p}")
        if h.fault_count:
            lines.append(f"  faults: {h.fault_count}")
            lines.extend(f"    {f}" for f in h.faults)
    lines.append("")
    loaded = all(p.status == "loaded" for p in report.plugins)
    if report.ok:
        lines.append("all plugins loaded")
    elif not loaded:
        lines.append("some installed harness plugins did not load")
    else:
        lines.append("a harness's store could not be read in time (see its faults above)")
    return "\n".join(lines)


def as_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = serde.unstructure(report)
    return data
