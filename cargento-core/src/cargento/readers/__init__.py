"""Bounded, read-only readers shared by every plugin.

None of them writes, creates, locks or renames anything; none of them opens anything but a
regular file (a named pipe with a transcript's name would block a plain ``open``); none of
them reads a whole large file into memory; all of them tolerate garbage, truncated and half-written input.

The names are loaded on first use, so importing one reader (as the hook forwarders do) does not
import every other.
"""

from __future__ import annotations

# ``typing`` only for the type checker: the hook forwarders import this package on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cargento.readers.backward import walk_back, walk_back_records
    from cargento.readers.follow import FileIdentity, FollowedSummary, JsonlFollower, cached_summary, follow_summary
    from cargento.readers.jsonl import cached_head, head_bytes, loads_record, read_head_records
    from cargento.readers.jsonobject import JsonObjectRead, load_json_object, read_json_object
    from cargento.readers.regular import (
        UNREADABLE_CAUSES,
        NotRegularFile,
        file_kind,
        open_regular,
        read_regular,
        split_unreadable,
        unreadable,
        why,
    )
    from cargento.readers.sqlite import database_stamp, open_ro, query_ro
    from cargento.readers.tail import tail_lines, tail_records
    from cargento.readers.walk import Found, Scan, entry_is_dir, glob_files, scan_dir

#: Each public name and the module that defines it.
_WHERE = {
    "walk_back": "cargento.readers.backward",
    "walk_back_records": "cargento.readers.backward",
    "FileIdentity": "cargento.readers.follow",
    "FollowedSummary": "cargento.readers.follow",
    "JsonlFollower": "cargento.readers.follow",
    "cached_summary": "cargento.readers.follow",
    "follow_summary": "cargento.readers.follow",
    "cached_head": "cargento.readers.jsonl",
    "head_bytes": "cargento.readers.jsonl",
    "loads_record": "cargento.readers.jsonl",
    "read_head_records": "cargento.readers.jsonl",
    "JsonObjectRead": "cargento.readers.jsonobject",
    "load_json_object": "cargento.readers.jsonobject",
    "read_json_object": "cargento.readers.jsonobject",
    "UNREADABLE_CAUSES": "cargento.readers.regular",
    "NotRegularFile": "cargento.readers.regular",
    "file_kind": "cargento.readers.regular",
    "open_regular": "cargento.readers.regular",
    "read_regular": "cargento.readers.regular",
    "split_unreadable": "cargento.readers.regular",
    "unreadable": "cargento.readers.regular",
    "why": "cargento.readers.regular",
    "database_stamp": "cargento.readers.sqlite",
    "open_ro": "cargento.readers.sqlite",
    "query_ro": "cargento.readers.sqlite",
    "tail_lines": "cargento.readers.tail",
    "tail_records": "cargento.readers.tail",
    "Found": "cargento.readers.walk",
    "Scan": "cargento.readers.walk",
    "entry_is_dir": "cargento.readers.walk",
    "glob_files": "cargento.readers.walk",
    "scan_dir": "cargento.readers.walk",
}

__all__ = [
    "UNREADABLE_CAUSES",
    "FileIdentity",
    "FollowedSummary",
    "Found",
    "JsonObjectRead",
    "JsonlFollower",
    "NotRegularFile",
    "Scan",
    "cached_head",
    "cached_summary",
    "database_stamp",
    "entry_is_dir",
    "file_kind",
    "follow_summary",
    "glob_files",
    "head_bytes",
    "load_json_object",
    "loads_record",
    "open_regular",
    "open_ro",
    "query_ro",
    "read_head_records",
    "read_json_object",
    "read_regular",
    "scan_dir",
    "split_unreadable",
    "tail_lines",
    "tail_records",
    "unreadable",
    "walk_back",
    "walk_back_records",
    "why",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'cargento.readers' has no attribute {name!r}")
    value = getattr(_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


def _module(name: str) -> Any:
    """The module *name*, imported on first use (:mod:`importlib` itself only then: the hook
    forwarders import this package on every hook)."""
    import importlib

    return importlib.import_module(name)
