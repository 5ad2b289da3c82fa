"""``cargento --diagnose``: every plugin, every path searched, and what was found there."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from cargento import serde
from cargento.board import Board, BoardBuilder
from cargento.maturity import load as load_maturity
from cargento.models import StoreLocation
from cargento.ownstore import OwnStore, not_read
from cargento.plugins import PluginRecord, Registry
from cargento.readers.regular import split_unreadable
from cargento.sharedmethods import shared_methods

if TYPE_CHECKING:
    from cargento.cli import Options

__all__ = [
    "OWN_STORES_GROUP",
    "HarnessReport",
    "OwnStore",
    "Report",
    "UnreadableStore",
    "diagnose",
    "not_read",
    "render_text",
]

#: The entry-point group a dashboard distribution registers ``own_stores(env, options) -> Iterable[OwnStore]``
#: in, so ``--diagnose`` names the server's own stores without core importing the server.
OWN_STORES_GROUP = "cargento.own_stores"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class LocationReport:
    path: str
    role: str
    origin: str
    #: ``missing``, ``present but unreadable``, ``read, N sessions`` or ``read, no recent sessions``.
    found: str
    sessions: int
    detail: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class UnreadableStore:
    """A store path (a folder, a file, a database) that could not be read, and why."""

    path: str
    #: ``permission denied``, ``symlink loop``, ``not a regular file (named pipe)``, ``not an
    #: SQLite database``...
    cause: str


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class DriftLine:
    """Schema drift: how many records of one unknown type (or with one unknown field) this
    harness's sessions in the window hold, for one harness version."""

    #: The harness version the stores name; ``None`` where a store names none.
    version: str | None
    kind: str
    name: str
    count: int
    sessions: int


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HarnessReport:
    key: str
    label: str
    plugin: PluginRecord
    locations: tuple[LocationReport, ...] = ()
    problems: tuple[str, ...] = ()
    faults: tuple[str, ...] = ()
    fault_count: int = 0
    #: Every store path of this harness that could not be read, from its locations, its
    #: discovery problems and its read faults.
    unreadable: tuple[UnreadableStore, ...] = ()
    #: Per reading ``verified``, ``synthetic`` or ``absent`` (:mod:`cargento.maturity`); empty
    #: for a harness the packaged table does not cover.
    maturity: Mapping[str, str] = attrs.field(factory=dict)
    #: The harness versions the recorded stores behind ``verified`` came from.
    versions_of_record: tuple[str, ...] = ()
    #: Record types and fields its readers skipped as unknown, per harness version.
    drift: tuple[DriftLine, ...] = ()


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Report:
    core_version: str
    generated_at: datetime
    window_hours: float
    relocation: Mapping[str, str]
    plugins: tuple[PluginRecord, ...]
    harnesses: tuple[HarnessReport, ...]
    #: Every installed harness plugin loaded.
    ok: bool
    #: No discovered store was unreadable (see :attr:`HarnessReport.unreadable`).
    stores_ok: bool = True
    #: The dashboard's own stores, from every :data:`OWN_STORES_GROUP` entry point.
    own_stores: tuple[OwnStore, ...] = ()


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


def diagnose(
    registry: Registry, builder: BoardBuilder, *, now: datetime | None = None, options: Options | None = None
) -> Report:
    """Run discovery for every loaded harness and describe what it found; *options* are the
    run's flags, so a store a flag turns off is named without being read."""
    from cargento import __version__

    moment = now or builder.clock()
    builder.build(now=moment)
    # A second pass: plugins keep what a read found wrong (a database corrupt past its header)
    # and report it with the next discovery.
    board = builder.build(now=moment)
    drift = _drift(board)
    reports = []
    table = (load_maturity() or {}).get("harnesses", {})
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
                    LocationReport(
                        path=loc.path,
                        role=loc.role,
                        origin=loc.origin,
                        found=_found(loc, n),
                        sessions=n,
                        detail=loc.detail,
                    )
                )
        faults = registry.faults.get(key, [])
        problems = discovery.problems if discovery else ()
        reports.append(
            HarnessReport(
                key=key,
                label=info.label,
                plugin=registry.records[key],
                locations=tuple(locations),
                problems=problems,
                faults=tuple(f"{f.hook}: {f.message}" for f in faults[-5:]),
                fault_count=registry.fault_counts.get(key, 0),
                unreadable=_unreadable(locations, problems, [f.message for f in faults]),
                maturity=dict(table.get(key, {}).get("readings", {})),
                versions_of_record=tuple(table.get(key, {}).get("versions", ())),
                drift=drift.get(key, ()),
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
        ok=not registry.failed(),
        # A harness whose read the watchdog had to abandon is a store that could not be read.
        stores_ok=not any(h.unreadable for h in reports) and not builder.stuck,
        own_stores=(code_cache_store(builder.env), *own_stores(builder.env, options)),
    )


def code_cache_store(env: Mapping[str, str]) -> OwnStore:
    """Core's own store, the compiled attrs methods a console start takes (:mod:`cargento.codecache`)."""
    from cargento import codecache
    from cargento.statepath import state_dir_path

    found = codecache.describe(Path(state_dir_path(env)))
    return OwnStore(
        name="code cache", path=found["path"] or "", status=found["status"] or "read", detail=found["detail"]
    )


def _drift(board: Board) -> dict[str, tuple[DriftLine, ...]]:
    """Per harness, what its sessions on *board* skipped as unknown, summed per version."""
    counts: dict[str, dict[tuple[str | None, str, str], tuple[int, int]]] = {}
    for s in board.sessions:
        mine = counts.setdefault(s.harness, {})
        for u in s.unknown_records:
            key = (s.harness_version, u.kind, u.name)
            n, sessions = mine.get(key, (0, 0))
            mine[key] = (n + u.count, sessions + 1)
    return {
        harness: tuple(
            DriftLine(version=v, kind=k, name=n, count=c, sessions=m)
            for (v, k, n), (c, m) in sorted(found.items(), key=lambda kv: (str(kv[0][0]), -kv[1][0], kv[0][2]))
        )
        for harness, found in counts.items()
        if found
    }


def own_stores(env: Mapping[str, str], options: Options | None = None) -> tuple[OwnStore, ...]:
    """What every installed dashboard says of its own stores; a failing one is reported as
    such rather than stopping the report. Each entry point is called as ``own_stores(env,
    options)``: *options* (``None`` when unknown) lets it name a store a flag turned off
    without reading it."""
    import importlib.metadata as md

    found: list[OwnStore] = []
    for ep in sorted(md.entry_points(group=OWN_STORES_GROUP), key=lambda e: e.name):
        try:
            found.extend(ep.load()(env, options))
        except Exception as exc:  # a dashboard's problem must not hide the harness report
            found.append(OwnStore(name=ep.name, path="", status="unreadable", detail=f"{type(exc).__name__}: {exc}"))
    return tuple(found)


def _unreadable(
    locations: list[LocationReport], problems: tuple[str, ...], faults: list[str]
) -> tuple[UnreadableStore, ...]:
    found: dict[str, UnreadableStore] = {}
    for loc in locations:
        if loc.found == "present but unreadable":
            found.setdefault(loc.path, UnreadableStore(path=loc.path, cause=loc.detail or "unreadable"))
    for line in (*problems, *faults):
        parsed = split_unreadable(line)
        if parsed is not None:
            found.setdefault(parsed[0], UnreadableStore(path=parsed[0], cause=parsed[1]))
    return tuple(found[k] for k in sorted(found))


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
        for u in h.unreadable:
            lines.append(f"  unreadable: {u.path} · {u.cause}")
        for p in h.problems:
            lines.append(f"  skipped: {p}")
        if h.fault_count:
            lines.append(f"  faults: {h.fault_count}")
            lines.extend(f"    {f}" for f in h.faults)
        for d in h.drift:
            lines.append(
                f"  schema drift ({d.version or 'version not recorded'}): {d.count} × {d.kind} {d.name!r}"
                f" in {d.sessions} session{'s' if d.sessions != 1 else ''} not understood by this build"
            )
        if h.maturity:
            versions = ", ".join(h.versions_of_record) or "none recorded"
            levels = " ".join(f"{r}={level}" for r, level in h.maturity.items())
            lines.append(f"  maturity (versions of record: {versions}): {levels}")
    if report.own_stores:
        lines.append("")
        lines.append("Cargento's own stores:")
        for own in report.own_stores:
            extra = f" ({own.detail})" if own.detail else ""
            lines.append(f"  {own.name:<12} {own.path or '(no path)'} · {own.status}{extra}")
    lines.append("")
    lines.append("all plugins loaded" if report.ok else "some installed harness plugins did not load")
    if not report.stores_ok:
        count = sum(len(h.unreadable) for h in report.harnesses)
        if count:
            lines.append(f"{count} store path{'s' if count != 1 else ''} could not be read (see 'unreadable' above)")
        else:
            lines.append("a harness's store could not be read in time (see its faults above)")
    return "\n".join(lines)


def as_dict(report: Report) -> dict[str, Any]:
    data: dict[str, Any] = serde.unstructure(report)
    return data
