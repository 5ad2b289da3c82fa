"""Bounded, read-only readers shared by every plugin.

None of them writes, creates, locks or renames anything; none of them opens anything but a
regular file (a named pipe with a transcript's name would block a plain ``open``); none of
them reads a whole large file into memory; all of them tolerate garbage, truncated and half-written input.
"""

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
