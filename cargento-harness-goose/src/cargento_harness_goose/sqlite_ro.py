"""The read-only SQLite access this plugin uses: core's, under the names its modules call.

Opening and reading go through :mod:`cargento.readers.sqlite`, which creates, writes and locks
nothing beside a database (WAL included) and turns every failure into a
:class:`cargento.HarnessError`; see its module docstring for how each store state is opened.
"""

from __future__ import annotations

from cargento.readers.sqlite import DEFAULT_BUSY_MS as BUSY_MS
from cargento.readers.sqlite import columns, has_table, query
from cargento.readers.sqlite import open_ro as connect
from cargento.readers.sqlite import wrap_error as wrap

__all__ = ["BUSY_MS", "columns", "connect", "has_table", "query", "wrap"]
