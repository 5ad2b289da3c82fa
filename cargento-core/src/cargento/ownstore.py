"""One of the dashboard's own stores as found on disk, the way ``--diagnose`` and the page header
name it.

Its own module so that the server's features, each of which reports its stores, need not import
the whole ``--diagnose`` report (its models, the maturity table) at every start;
:mod:`cargento.diagnose` re-exports both names.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["OwnStore", "not_read"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class OwnStore:
    """One of the dashboard's own stores (annotations, history, dismissals...) as found on disk."""

    #: The store's name as the page and the header say it (``annotations``).
    name: str
    path: str
    #: ``absent``, ``read``, ``unreadable``, ``reset`` or ``off`` (a flag of this run keeps the
    #: store from being read or written: :func:`not_read`).
    status: str
    #: What was read (``12 records``) or why it could not be (``not valid JSON``).
    detail: str | None = None
    #: When a ``reset`` happened (the page header says it), or ``None``.
    at: datetime | None = None


def not_read(name: str, path: Path | str, flag: str) -> OwnStore:
    """A store *flag* turns off for the run: named, and neither read nor written."""
    return OwnStore(name=name, path=str(path), status="off", detail=f"{flag}: not read or written this run")
