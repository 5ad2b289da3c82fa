"""A Pi session's entry tree, kept current from appended lines, and its active branch.

The active branch is the newest persisted leaf and its ancestors. Pi appends every entry with
the id of the entry it continues, so a rewind or ``/tree`` jump shows up as an append whose
parent is not the previous entry. When the newest entry's ancestry is broken (a parent that is
missing, or a cycle), the newest entry whose chain reaches the root is used instead.

The branch and its facts (:class:`~cargento_harness_pi.branch.BranchFacts`) are kept once
worked out. An entry appended under the kept leaf is the new leaf (it is the newest entry, and
its chain reaches the root through the leaf's): the branch grows by it and its facts are fed
it alone. Any other entry (a rewind, a jump, an id written again) drops them, and the next
reading walks the tree from its newest entry again.
"""

from __future__ import annotations

from typing import Any

import attrs
from cargento.cache import HarnessCache
from cargento.drift import DriftCounter
from cargento.errors import HarnessError
from cargento.models import SpacedockBoot
from cargento.readers import JsonlFollower, why
from cargento.sharedrepr import shared_repr

from cargento_harness_pi.branch import BranchFacts
from cargento_harness_pi.entries import Entry, Header, entry_from_record

__all__ = ["MAX_LINE_BYTES", "SessionTree", "load"]

MAX_LINE_BYTES = 8 * 1024 * 1024
_MAX_DEPTH = 1_000_000


@shared_repr
@attrs.define(repr=False, eq=False)
class SessionTree:
    """Every entry read so far (in file order) and the follower positioned after them."""

    path: str
    header: Header
    follower: JsonlFollower
    entries: dict[str, Entry] = attrs.Factory(dict)
    order: list[str] = attrs.Factory(list)
    #: The newest ``session_info`` entry anywhere in the file (the title is global).
    info: Entry | None = None
    #: The newest ``spacedock status --boot`` command output, once one was seen.
    boot: SpacedockBoot | None = None
    _boot_calls: set[str] = attrs.Factory(set)
    _roots: dict[str, bool] = attrs.Factory(dict)
    #: Entry types and message roles this build does not know, counted (schema drift).
    drift: DriftCounter = attrs.Factory(DriftCounter)
    #: The active branch, root first, and its facts, while they stand (``None``: work them
    #: out again).
    _path: list[Entry] | None = attrs.field(default=None, init=False)
    _facts: BranchFacts | None = attrs.field(default=None, init=False)

    @classmethod
    def open(cls, path: str, header: Header) -> SessionTree:
        return cls(path=path, header=header, follower=JsonlFollower(path, max_line_bytes=MAX_LINE_BYTES))

    def refresh(self) -> bool:
        """Read appended lines; return False when the file was replaced or truncated."""
        if not self.follower.changed():
            return True
        records = self.follower.poll()
        if self.follower.reset:
            return False
        for record in records:
            _count_unknown(record, self.drift)
            entry = entry_from_record(record, self.entries)
            if entry is not None:
                self.add(entry)
        return True

    def add(self, entry: Entry) -> None:
        path = self._path
        if entry.id in self.entries:
            self.order.remove(entry.id)
            self._roots.clear()
            path = None
        elif path is not None and (not path or entry.parent != path[-1].id or len(path) >= _MAX_DEPTH):
            path = None
        if path is None:
            self._path = self._facts = None
        else:  # appended under the leaf: the new leaf
            path.append(entry)
            self._roots[entry.id] = True
            assert self._facts is not None
            self._facts.feed(entry)
        self.entries[entry.id] = entry
        self.order.append(entry.id)
        if entry.kind == "session_info":
            self.info = entry
        self._boot_calls.update(entry.boot_calls)
        if entry.kind == "toolResult" and entry.boot is not None and entry.tool_call_id in self._boot_calls:
            self.boot = entry.boot

    def _reaches_root(self, start: str) -> bool:
        """Whether *start*'s ancestry reaches a root; only successes are remembered, since a
        missing parent can still arrive."""
        seen: list[str] = []
        visited: set[str] = set()
        current: str | None = start
        verdict = False
        while current is not None and len(seen) < _MAX_DEPTH:
            if self._roots.get(current):
                verdict = True
                break
            entry = self.entries.get(current)
            if entry is None or current in visited:
                break
            seen.append(current)
            visited.add(current)
            if entry.parent is None:
                verdict = True
                break
            current = entry.parent
        if verdict:
            for eid in seen:
                self._roots[eid] = True
        return verdict

    def leaf(self) -> Entry | None:
        """The newest entry whose ancestry reaches the root."""
        for eid in reversed(self.order):
            if self._reaches_root(eid):
                return self.entries[eid]
        return None

    def active_path(self) -> list[Entry]:
        """The active branch, root first (a new list)."""
        return list(self._kept_path())

    def facts(self) -> BranchFacts:
        """What the active branch says (kept: never change it)."""
        self._kept_path()
        assert self._facts is not None
        return self._facts

    def _kept_path(self) -> list[Entry]:
        if self._path is None:
            path = self._walk_active_path()
            facts = BranchFacts()
            for entry in path:
                facts.feed(entry)
            self._path, self._facts = path, facts
        return self._path

    def _walk_active_path(self) -> list[Entry]:
        leaf = self.leaf()
        out: list[Entry] = []
        current: Entry | None = leaf
        while current is not None and len(out) < _MAX_DEPTH:
            out.append(current)
            current = self.entries.get(current.parent) if current.parent else None
        out.reverse()
        return out


#: Entry types of a v3 session file (pi's session manager writes these and no others).
KNOWN_TYPES = frozenset(
    {
        "session",
        "message",
        "thinking_level_change",
        "model_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
#: Message roles a ``message`` entry carries.
KNOWN_ROLES = frozenset(
    {"user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)


def _count_unknown(record: dict[str, Any], drift: DriftCounter) -> None:
    kind = record.get("type")
    if not isinstance(kind, str):
        drift.record_type("line without a type")
    elif kind not in KNOWN_TYPES:
        drift.record_type(kind)
    elif kind == "message":
        message = record.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if isinstance(role, str) and role not in KNOWN_ROLES:
            drift.record_type(f"message role {role}")


def load(cache: HarnessCache, path: str, header: Header) -> SessionTree:
    """The current tree of one session file, from the cache when possible."""
    key = f"tree:{path}"
    try:
        tree = cache.get(key)
        if not (isinstance(tree, SessionTree) and tree.header == header and tree.refresh()):
            tree = SessionTree.open(path, header)
            tree.refresh()
    except OSError as exc:
        cache.pop(key)
        raise HarnessError(f"cannot read {path}: {why(exc)}") from exc
    cache.set(key, tree)
    return tree
