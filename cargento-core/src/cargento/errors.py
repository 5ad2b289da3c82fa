"""Expected failures. Anything else a plugin raises is recorded as a bug fault."""

from __future__ import annotations

__all__ = [
    "CargentoError",
    "HarnessDataMissing",
    "HarnessError",
    "HarnessFormatUnsupported",
    "StoreLocked",
]


class CargentoError(Exception):
    """A problem in Cargento itself that is reported in one line."""


class HarnessError(Exception):
    """An expected problem reading a harness store.

    Raise it (or a subclass) from a hook for conditions that are not bugs: a store that is
    missing, locked, corrupt or in a format this plugin does not support. Core records it as
    a one-line fault on the harness's row, without a traceback.
    """


class HarnessDataMissing(HarnessError):
    """A file or record the reading needed is not there."""


class HarnessFormatUnsupported(HarnessError):
    """The store is in a format (or version) this plugin does not read."""


class StoreLocked(HarnessError):
    """A database was locked by its writer for longer than the read allows."""
