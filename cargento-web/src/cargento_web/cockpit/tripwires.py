"""Workflow stage conditions ("tripwires"): one saved stage per exact workflow, tripping once
when the first current entity is observed entering it.

The saved rules live in ``cargento-tripwires.json`` (at most :data:`MAX_RULES`, never evicted);
what each rule has *seen* lives only in memory, so first sight, a restart and an evidence gap
(the workflow unreadable or its first officer gone stale) all establish a baseline rather than
an entry. An entity enters a stage when one observation showed it at another declared stage and
the next shows it at the rule's stage; an entity seen for the first time is a baseline too. A
trip latches until Rearm; saving the unchanged stage keeps the latch. No rule writes into an
agent: a trip raises a notification through the event hub like any other raise, whose outcome
the deliveries store records.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
from cargento.atomicfile import write_atomic
from cargento.ownstore import OwnStore
from cargento.sharedmethods import shared_methods

from cargento_web.cockpit.spacedock import Workflow
from cargento_web.runtime.setaside import set_aside

__all__ = ["MAX_RULES", "TRIPWIRES_FILE", "Change", "Rule", "TripwireStore", "Tripwires", "store_report"]

log = logging.getLogger("cargento_web")

TRIPWIRES_FILE = "cargento-tripwires.json"
#: Rules saved at most; a save beyond it is refused, nothing is evicted.
MAX_RULES = 64
#: The store is never read past this size (a larger file is unreadable, set aside).
MAX_BYTES = 256 * 1024
_MAX_FIELD = 1000


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Rule:
    id: str
    workflow: str
    stage: str
    project: str | None
    saved_at: str
    #: ``{at, entity, raise}`` once tripped, until Rearm.
    tripped: Mapping[str, Any] | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Change:
    """What a ``POST /api/tripwire`` came to: ``status`` is the HTTP status to answer with."""

    status: int
    body: dict[str, Any]


class StoreUnreadable(Exception):
    pass


def _rule_from(raw: object) -> Rule:
    if not isinstance(raw, dict):
        raise StoreUnreadable("a rule is not an object")
    fields: dict[str, Any] = {}
    for name in ("id", "workflow", "stage", "saved_at"):
        value = raw.get(name)
        if not isinstance(value, str) or not value or len(value) > _MAX_FIELD:
            raise StoreUnreadable(f"a rule's {name} is not a short string")
        fields[name] = value
    project = raw.get("project")
    tripped = raw.get("tripped")
    if tripped is not None and not isinstance(tripped, dict):
        raise StoreUnreadable("a rule's trip is not an object")
    return Rule(project=project if isinstance(project, str) else None, tripped=tripped, **fields)


def parse_store(data: bytes) -> tuple[int, list[Rule]]:
    """The revision and rules of a store file; raises :class:`StoreUnreadable`."""
    if len(data) > MAX_BYTES:
        raise StoreUnreadable(f"larger than {MAX_BYTES} bytes")
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise StoreUnreadable("not valid JSON") from e
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise StoreUnreadable("not a version-1 tripwire store")
    revision = doc.get("revision")
    rules = doc.get("rules")
    if isinstance(revision, bool) or not isinstance(revision, int) or revision < 0 or not isinstance(rules, list):
        raise StoreUnreadable("no revision or rule list")
    if len(rules) > MAX_RULES:
        raise StoreUnreadable(f"more than {MAX_RULES} rules")
    parsed = [_rule_from(r) for r in rules]
    if len({r.workflow for r in parsed}) != len(parsed) or len({r.id for r in parsed}) != len(parsed):
        raise StoreUnreadable("two rules share a workflow or an id")
    return revision, parsed


def store_report(path: Path) -> OwnStore:
    """The store as ``--diagnose`` names it: its path, and any read failure."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return OwnStore(name="tripwires", path=str(path), status="absent")
    except OSError as e:
        return OwnStore(name="tripwires", path=str(path), status="unreadable", detail=e.strerror or str(e))
    try:
        revision, rules = parse_store(data)
    except StoreUnreadable as e:
        return OwnStore(name="tripwires", path=str(path), status="unreadable", detail=str(e))
    return OwnStore(name="tripwires", path=str(path), status="read", detail=f"{len(rules)} rules, revision {revision}")


class TripwireStore:
    """The saved rules on disk, re-read before every write; an unreadable file is set aside."""

    def __init__(self, directory: Path, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.path = directory / TRIPWIRES_FILE
        self.clock = clock
        self.reset: OwnStore | None = None
        self.revision = 0
        self.rules: list[Rule] = []
        self._load_at_start()

    def _load_at_start(self) -> None:
        try:
            self.revision, self.rules = self._read()
        except StoreUnreadable as e:
            try:
                aside = set_aside(self.path, self.clock())
                where = f"set aside as {aside.name}"
            except OSError:
                where = "left in place, unread"
            self.reset = OwnStore(
                name="tripwires",
                path=str(self.path),
                status="reset",
                detail=f"the saved stage conditions ({e}; {where})",
            )
            self.revision, self.rules = 0, []

    def _read(self) -> tuple[int, list[Rule]]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return 0, []
        except OSError as e:
            raise StoreUnreadable(e.strerror or str(e)) from e
        return parse_store(data)

    def refresh(self) -> None:
        """Take what is on disk now (another instance or a hand edit may have moved it)."""
        try:
            self.revision, self.rules = self._read()
        except StoreUnreadable:
            log.warning("the tripwire store %s cannot be read; keeping the rules in memory", self.path)

    def write(self, revision: int, rules: list[Rule]) -> None:
        """Replace the store; raises ``OSError`` when the write fails (memory unchanged)."""
        doc = {"version": 1, "revision": revision, "rules": [attrs.asdict(r) for r in rules]}
        write_atomic(self.path, json.dumps(doc, indent=1))
        self.revision, self.rules = revision, rules


class Tripwires:
    """The rules, what each has seen this run, and the change and trip logic."""

    def __init__(
        self,
        store: TripwireStore,
        *,
        suspended: bool,
        notify: Callable[[Rule, Workflow, str], str] | None = None,
    ) -> None:
        self.store = store
        #: ``--no-spacedock``: rules stay readable and never evaluate.
        self.suspended = suspended
        self.notify = notify
        self._seen: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._workflows: dict[str, Workflow] = {}

    # -- changes --------------------------------------------------------------------------

    def change(self, body: Mapping[str, Any], workflows: Mapping[str, Workflow]) -> Change:
        action, rid, stage, expected = (
            body.get("action"),
            body.get("id"),
            body.get("stage"),
            body.get("expected_revision"),
        )
        if action not in ("save", "remove", "rearm"):
            return Change(status=400, body={"error": "action must be save, remove or rearm"})
        if not isinstance(rid, str) or not rid or len(rid) > 200:
            return Change(status=400, body={"error": "id must be a non-empty opaque string"})
        if not isinstance(stage, str) or not stage or len(stage) > 200:
            return Change(status=400, body={"error": "stage must name the declared stage"})
        if isinstance(expected, bool) or not isinstance(expected, int):
            return Change(status=400, body={"error": "expected_revision must be an integer"})
        with self._lock:
            self.store.refresh()
            if expected != self.store.revision:
                return Change(
                    status=409,
                    body={"error": "stale revision", "reason": "stale", "revision": self.store.revision},
                )
            rules = list(self.store.rules)
            found = next((r for r in rules if r.id == rid), None)
            if action == "save":
                outcome = self._save(rules, found, rid, stage, body.get("workflow"), workflows)
                if isinstance(outcome, Change):
                    return outcome
                rules = outcome
            else:
                if found is None:
                    return Change(status=404, body={"error": "no rule with that id", "revision": self.store.revision})
                if found.stage != stage:
                    return Change(
                        status=409,
                        body={
                            "error": "that rule declares another stage",
                            "reason": "stage",
                            "revision": self.store.revision,
                        },
                    )
                if action == "remove":
                    rules = [r for r in rules if r.id != rid]
                    self._seen.pop(rid, None)
                else:
                    rules = [attrs.evolve(r, tripped=None) if r.id == rid else r for r in rules]
            try:
                self.store.write(self.store.revision + 1, rules)
            except OSError as e:
                return Change(
                    status=503,
                    body={"error": f"the tripwire store could not be written: {e.strerror or e}", "persisted": False},
                )
            return Change(
                status=200, body={"persisted": True, "revision": self.store.revision, "action": action, "id": rid}
            )

    def _save(
        self,
        rules: list[Rule],
        found: Rule | None,
        rid: str,
        stage: str,
        workflow: object,
        workflows: Mapping[str, Workflow],
    ) -> list[Rule] | Change:
        target = found.workflow if found is not None else workflow
        if not isinstance(target, str) or not target:
            return Change(status=400, body={"error": "workflow must name the exact workflow directory"})
        reading = workflows.get(target)
        if reading is None or reading.stages is None:
            return Change(
                status=409,
                body={
                    "error": "that workflow's stage list is not read now",
                    "reason": "unavailable",
                    "revision": self.store.revision,
                },
            )
        if stage not in reading.stages:
            return Change(
                status=422,
                body={"error": f"{stage!r} is not a declared stage of that workflow", "stages": list(reading.stages)},
            )
        same_workflow = next((r for r in rules if r.workflow == target), None)
        if same_workflow is not None and same_workflow.id != rid and found is None:
            # One stage per exact workflow: a save under a new id replaces that workflow's rule.
            rules = [r for r in rules if r.id != same_workflow.id]
            self._seen.pop(same_workflow.id, None)
        kept = found or same_workflow
        if kept is not None and kept.stage == stage and kept.workflow == target:
            made = attrs.evolve(kept, id=rid)  # the unchanged stage keeps its latch
        else:
            made = Rule(
                id=rid, workflow=target, stage=stage, project=reading.project, saved_at=datetime.now(UTC).isoformat()
            )
            self._seen.pop(rid, None)
        rules = [r for r in rules if r.id != rid]
        if len(rules) >= MAX_RULES:
            return Change(
                status=409,
                body={
                    "error": f"{MAX_RULES} conditions are saved; remove one first",
                    "reason": "full",
                    "revision": self.store.revision,
                },
            )
        return [*rules, made]

    # -- observing ----------------------------------------------------------------------

    def observe(self, workflows: Mapping[str, Workflow]) -> bool:
        """Compare each rule's workflow with what it saw last; trip on the first entry.
        Returns whether any rule's published state moved."""
        moved = False
        with self._lock:
            self._workflows = dict(workflows)
            if self.suspended:
                return False
            for rule in list(self.store.rules):
                reading = workflows.get(rule.workflow)
                if reading is None or reading.stages is None or rule.stage not in reading.stages:
                    if self._seen.pop(rule.id, None) is not None:
                        moved = True  # an evidence gap: the next sight is a baseline
                    continue
                now_at = reading.current()
                before = self._seen.get(rule.id)
                self._seen[rule.id] = now_at
                if before is None:
                    moved = True
                    continue
                entered = [
                    s for s, st in now_at.items() if st == rule.stage and s in before and before[s] != rule.stage
                ]
                if entered and rule.tripped is None:
                    moved = self._trip(rule, reading, entered[0]) or moved
        return moved

    def _trip(self, rule: Rule, reading: Workflow, entity: str) -> bool:
        decided = self.notify(rule, reading, entity) if self.notify is not None else "no notification lane"
        tripped = {
            "at": datetime.now(UTC).isoformat(),
            "entity": entity,
            "raise": decided,
            "session": reading.first_officer,
        }
        rules = [attrs.evolve(r, tripped=tripped) if r.id == rule.id else r for r in self.store.rules]
        try:
            self.store.write(self.store.revision + 1, rules)
        except OSError:
            log.warning("a tripped stage condition could not be saved; it stays tripped for this run")
            self.store.rules = rules
        return True

    # -- publishing ---------------------------------------------------------------------

    def document(self) -> dict[str, Any]:
        with self._lock:
            rules = []
            for r in self.store.rules:
                reading = self._workflows.get(r.workflow)
                if self.suspended:
                    coverage = "suspended: this run does not read Spacedock workflows (--no-spacedock)"
                elif reading is None:
                    coverage = "no fresh first officer reads this workflow now"
                elif reading.stages is None:
                    coverage = "the workflow's stage list cannot be read now"
                elif r.id in self._seen:
                    coverage = f"watching {len(reading.entities)} entities"
                else:
                    coverage = "baseline pending"
                rules.append(
                    {
                        **attrs.asdict(r),
                        "state": "suspended" if self.suspended else ("tripped" if r.tripped else "armed"),
                        "coverage": coverage,
                        "sources": [reading.first_officer] if reading is not None else [],
                        "unavailable": list(reading.unavailable) if reading is not None else [],
                        "baseline": r.id in self._seen,
                    }
                )
            return {
                "enabled": True,
                "suspended": self.suspended,
                "revision": self.store.revision,
                "rules": rules,
                "max_rules": MAX_RULES,
                "path": str(self.store.path),
            }
