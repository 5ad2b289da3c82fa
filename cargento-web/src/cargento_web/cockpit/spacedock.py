"""Spacedock stage strips: what a first officer's workflows hold, read from exactly two kinds
of project file.

A first officer's row carries the newest ``spacedock status --boot`` command output its
harness read (``BoardSession.spacedock``): absolute workflow and entity-state directories and
the dispatchable snapshot. From those this module reads, and nothing else:

- each workflow directory's ``README.md`` frontmatter, for the ordered stage list (``stages``
  as a list, or ``stages.states``; an item is a name or a mapping with ``name``);
- each entity state file's frontmatter (``*.md`` in an entity-state directory), for its
  ``status`` (and ``title`` when present).

The dispatchable list only fills in behind the state directory: an entity it names that no
state file holds is shown from the snapshot, marked so. Everything is bounded (workflows per
board, entities per workflow, bytes per file) and freshness-gated: a first officer idle longer
than :data:`FRESH_S` contributes no strip, and a workflow whose README declares no stage list
has none. Absent is said, never guessed; a missing strip is not a claim that no workflow exists.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs
from cargento.board import Board, BoardSession
from cargento.models import SpacedockBoot
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

from cargento_web.cockpit.frontmatter import read_frontmatter

__all__ = [
    "FRESH_S",
    "MAX_ENTITIES",
    "MAX_WORKFLOWS",
    "Entity",
    "Workflow",
    "WorkflowReader",
    "stages_of",
]

#: A first officer idle longer than this (seconds) contributes no strip.
FRESH_S = 6 * 3600.0
#: At most this many workflows are read per board, and entities per workflow.
MAX_WORKFLOWS = 16
MAX_ENTITIES = 256
#: At most this many directory entries are looked at in one entity-state directory.
MAX_DIR_ENTRIES = 2048
#: A workflow is re-read at most this often (seconds) while its first officer is unchanged.
REREAD_S = 2.0
#: At most this many stages are kept from one README.
MAX_STAGES = 32

FIRST_OFFICER = "spacedock:first-officer"
ENSIGN = "spacedock:ensign"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Entity:
    slug: str
    title: str | None
    #: The status its state file's frontmatter names (or the boot snapshot's ``current``).
    status: str | None
    #: ``state file`` or ``boot snapshot`` (the dispatchable list, behind the state directory).
    source: str
    #: The worker session (row key) observed holding it, where one is attributable.
    held_by: str | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Workflow:
    """One workflow as this board reads it; ``stages`` is ``None`` when its README supports none."""

    #: The workflow directory, exactly as boot named it: the workflow's identity.
    dir: str
    project: str | None
    first_officer: str
    harness: str
    boot_at: datetime | None
    stages: tuple[str, ...] | None
    entities: tuple[Entity, ...]
    #: Why a part is missing (``README.md has no stage list``, ``entity dir unreadable: ...``).
    unavailable: tuple[str, ...] = ()

    @property
    def readable(self) -> bool:
        """Whether the strip can be drawn (its stage list was read)."""
        return self.stages is not None

    def current(self) -> dict[str, str]:
        """Entity slug to its declared stage, for entities whose status is a declared stage."""
        declared = set(self.stages or ())
        return {e.slug: e.status for e in self.entities if e.status is not None and e.status in declared}

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.dir,
            "dir": self.dir,
            "name": Path(self.dir).name or self.dir,
            "project": self.project,
            "first_officer": self.first_officer,
            "harness": self.harness,
            "boot_at": self.boot_at.isoformat() if self.boot_at else None,
            "stages": list(self.stages) if self.stages is not None else None,
            "entities": [attrs.asdict(e) for e in self.entities],
            "unavailable": list(self.unavailable),
        }


def stages_of(frontmatter: dict[str, Any] | None) -> tuple[str, ...] | None:
    """The ordered stage names a workflow README's frontmatter declares, or ``None``."""
    if frontmatter is None:
        return None
    declared = frontmatter.get("stages")
    if isinstance(declared, dict):
        declared = declared.get("states")
    if not isinstance(declared, list):
        return None
    names: list[str] = []
    for item in declared[:MAX_STAGES]:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str | int) and not isinstance(name, bool) and str(name).strip():
            text = str(name).strip()[:80]
            if text not in names:
                names.append(text)
    return tuple(names) if names else None


def _text(value: object, limit: int = 200) -> str | None:
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()[:limit]
    return None


@shared_repr
@attrs.define(eq=False, repr=False)
class _Cached:
    signature: tuple[int, int, int, int]
    value: Any


class WorkflowReader:
    """Reads the workflows the board's first officers booted, caching files by their stat."""

    def __init__(self, *, fresh_s: float = FRESH_S) -> None:
        self.fresh_s = fresh_s
        self._files: dict[str, _Cached] = {}
        self._read_at: dict[tuple[str, SpacedockBoot], tuple[float, Workflow]] = {}
        self._lock = threading.Lock()

    # -- files ------------------------------------------------------------------------------

    def _frontmatter(self, path: Path) -> tuple[dict[str, Any] | None, str | None]:
        """The file's frontmatter (cached by mtime and size) and, when unreadable, why."""
        try:
            st = path.stat()
        except FileNotFoundError:
            return None, "missing"
        except OSError as e:
            return None, f"unreadable ({e.strerror or e})"
        key = str(path)
        signature = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        cached = self._files.get(key)
        if cached is not None and cached.signature == signature:
            return cached.value, None
        try:
            value = read_frontmatter(path)
        except OSError as e:
            return None, f"unreadable ({e.strerror or e})"
        self._files[key] = _Cached(signature, value)
        if len(self._files) > MAX_WORKFLOWS * (MAX_ENTITIES + 1):
            self._files.pop(next(iter(self._files)))
        return value, None

    def _entities(self, directory: str, unavailable: list[str]) -> dict[str, Entity]:
        found: dict[str, Entity] = {}
        try:
            with os.scandir(directory) as listing:
                names = []
                for n, entry in enumerate(listing):
                    if n >= MAX_DIR_ENTRIES:
                        unavailable.append(f"{directory}: more than {MAX_DIR_ENTRIES} entries, the rest not read")
                        break
                    if entry.name.endswith(".md") and entry.name != "README.md" and not entry.name.startswith("."):
                        names.append(entry.name)
        except OSError as e:
            unavailable.append(f"entity directory {directory} unreadable ({e.strerror or e})")
            return found
        for name in sorted(names)[:MAX_ENTITIES]:
            fm, why = self._frontmatter(Path(directory) / name)
            if fm is None:
                if why is not None:
                    unavailable.append(f"{name}: {why}")
                continue
            slug = _text(fm.get("slug")) or _text(fm.get("id")) or name[:-3]
            found[slug] = Entity(
                slug=slug, title=_text(fm.get("title")), status=_text(fm.get("status"), 80), source="state file"
            )
        if len(names) > MAX_ENTITIES:
            unavailable.append(f"{directory}: only the first {MAX_ENTITIES} entities read")
        return found

    # -- one workflow -----------------------------------------------------------------------

    def _workflow(self, officer: BoardSession, boot: SpacedockBoot, directory: str) -> Workflow:
        unavailable: list[str] = []
        fm, why = self._frontmatter(Path(directory) / "README.md")
        stages = stages_of(fm)
        if stages is None:
            unavailable.append(f"README.md {why}" if why else "README.md declares no stage list")
        entity_dirs = _entity_dirs_for(directory, boot)
        entities: dict[str, Entity] = {}
        for d in entity_dirs:
            for slug, e in self._entities(d, unavailable).items():
                entities.setdefault(slug, e)
        for item in boot.dispatchable:
            if item.slug not in entities and len(entities) < MAX_ENTITIES:
                entities[item.slug] = Entity(slug=item.slug, title=None, status=item.current, source="boot snapshot")
        return Workflow(
            dir=directory,
            project=officer.project,
            first_officer=officer.key,
            harness=officer.harness,
            boot_at=boot.at,
            stages=stages,
            entities=tuple(entities.values()),
            unavailable=tuple(unavailable),
        )

    # -- a board ----------------------------------------------------------------------------

    def read(self, board: Board) -> list[Workflow]:
        """Every fresh first officer's workflows on *board*, with the entities its workers hold."""
        now = board.generated_at
        with self._lock:
            out: list[Workflow] = []
            seen: set[str] = set()
            officers = sorted(
                (s for s in board.sessions if s.spacedock is not None and _is_fresh(s, now, self.fresh_s)),
                key=lambda s: s.last_active_at or now,
                reverse=True,
            )
            for officer in officers:
                boot = officer.spacedock
                assert boot is not None
                for directory in boot.workflow_dirs:
                    if directory in seen or len(out) >= MAX_WORKFLOWS:
                        continue
                    seen.add(directory)
                    out.append(self._cached_workflow(officer, boot, directory, now.timestamp()))
            workers = [s for s in board.sessions if s.role == ENSIGN]
            return [_with_holders(w, workers, board) for w in out]

    def _cached_workflow(self, officer: BoardSession, boot: SpacedockBoot, directory: str, moment: float) -> Workflow:
        """The workflow as read at most :data:`REREAD_S` seconds ago on the board's clock."""
        key = (directory, boot)
        hit = self._read_at.get(key)
        if hit is not None and 0 <= moment - hit[0] < REREAD_S and hit[1].first_officer == officer.key:
            return hit[1]
        made = self._workflow(officer, boot, directory)
        self._read_at[key] = (moment, made)
        if len(self._read_at) > MAX_WORKFLOWS * 4:
            self._read_at.pop(next(iter(self._read_at)))
        return made


def _is_fresh(s: BoardSession, now: datetime, fresh_s: float) -> bool:
    return s.last_active_at is not None and (now - s.last_active_at).total_seconds() <= fresh_s


def _entity_dirs_for(directory: str, boot: SpacedockBoot) -> Sequence[str]:
    """The entity-state directories of one workflow: those inside it (or it), else, with one
    workflow booted, every one boot named, else the one at the same place in boot's lists;
    with none named, the workflow directory itself."""
    if not boot.entity_dirs:
        return (directory,)
    prefix = directory.rstrip("/\\")
    inside = [d for d in boot.entity_dirs if d == prefix or d.startswith(prefix + "/") or d.startswith(prefix + "\\")]
    if inside:
        return inside
    if len(boot.workflow_dirs) == 1:
        return boot.entity_dirs
    if len(boot.entity_dirs) == len(boot.workflow_dirs):
        return (boot.entity_dirs[boot.workflow_dirs.index(directory)],)
    return ()


def _mentions(slug: str, texts: Iterable[str | None]) -> bool:
    pattern = re.compile(r"(?<![\w-])" + re.escape(slug) + r"(?![\w-])", re.IGNORECASE)
    return any(t and pattern.search(t) for t in texts)


def _with_holders(workflow: Workflow, workers: list[BoardSession], board: Board) -> Workflow:
    """Mark the entity each live worker holds: an ensign of the first officer's harness and
    project (or a running subagent of the first officer) whose title, request or name names
    the entity. A harness with no ensign role and no subagents (Pi) reports no workers to
    attribute one to, so its strips bold nothing."""
    officer = next((s for s in board.sessions if s.key == workflow.first_officer), None)
    candidates: list[tuple[str, list[str | None]]] = [
        (w.key, [w.title, w.instruction.text if w.instruction else None])
        for w in workers
        if w.harness == workflow.harness and w.project == workflow.project and w.state != "idle"
    ]
    if officer is not None:
        candidates += [(f"{officer.key}#{a.session_id or a.name}", [a.name]) for a in officer.subagents if a.running]
    held: dict[str, str] = {}
    for entity in workflow.entities:
        for key, texts in candidates:
            if _mentions(entity.slug, texts):
                held[entity.slug] = key
                break
    if not held:
        return workflow
    return attrs.evolve(workflow, entities=tuple(attrs.evolve(e, held_by=held.get(e.slug)) for e in workflow.entities))
