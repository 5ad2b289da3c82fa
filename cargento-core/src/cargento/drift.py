"""Schema drift: the record types and fields a reader skipped because this build does not know them.

A new harness version is the most common reason a monitor silently goes wrong: it writes a
record type the reader has never seen and the reading quietly stops moving. A reader counts
what it skipped as unknown (never what it skips on purpose: a known type it has no use for is
not drift) in a :class:`DriftCounter`, and hands the counts on the session reading with the
harness version the store names. ``--diagnose`` sums them per harness and version; the
session page says when a store holds records this build does not understand.
"""

from __future__ import annotations

from typing import Literal

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["DRIFT_NAMES_KEPT", "DriftCounter", "DriftKind", "UnknownRecord"]

DriftKind = Literal["record type", "field"]
#: Distinct unknown names kept per session (a store of garbage does not grow a reading).
DRIFT_NAMES_KEPT = 32
#: Characters of an unknown name kept.
_NAME_CHARS = 80


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class UnknownRecord:
    """How many records of one unknown type (or carrying one unknown field) a reader skipped."""

    kind: DriftKind
    name: str
    count: int


@shared_methods
@attrs.define(repr=False, eq=False)
class DriftCounter:
    """Counts of what a reader skipped as unknown, bounded to :data:`DRIFT_NAMES_KEPT` names."""

    counts: dict[tuple[DriftKind, str], int] = attrs.Factory(dict)
    #: Skipped records whose name was not kept because the bound was reached.
    overflow: int = 0

    def add(self, kind: DriftKind, name: str) -> None:
        key = (kind, name[:_NAME_CHARS])
        if key in self.counts:
            self.counts[key] += 1
        elif len(self.counts) < DRIFT_NAMES_KEPT:
            self.counts[key] = 1
        else:
            self.overflow += 1

    def record_type(self, name: str) -> None:
        self.add("record type", name)

    def field(self, name: str) -> None:
        self.add("field", name)

    def snapshot(self) -> tuple[UnknownRecord, ...]:
        """The counts, most frequent first, then by name."""
        items = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        out = [UnknownRecord(kind=k, name=n, count=c) for (k, n), c in items]
        if self.overflow:
            out.append(UnknownRecord(kind="record type", name="(more names not kept)", count=self.overflow))
        return tuple(out)
