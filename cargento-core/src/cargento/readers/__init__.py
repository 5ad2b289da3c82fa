"""Bounded, read-only readers shared by every plugin.

None of them writes, creates, locks or renames anything; none of them reads a whole large file
into memory; all of them tolerate garbage, truncated and half-written input.
"""

from cargento.readers.backward import walk_back, walk_back_records
from cargento.readers.follow import FileIdentity, FollowedSummary, JsonlFollower, cached_summary, follow_summary
from cargento.readers.jsonl import cached_head, head_bytes, loads_record, read_head_records
from cargento.readers.jsonobject import JsonObjectRead, load_json_object, read_json_object
from cargento.readers.sqlite import database_stamp, open_ro, query_ro
from cargento.readers.tail import tail_lines, tail_records

__all__ = [
    "FileIdentity",
    "FollowedSummary",
    "JsonObjectRead",
    "JsonlFollower",
    "cached_head",
    "cached_summary",
    "database_stamp",
    "follow_summary",
    "head_bytes",
    "load_json_object",
    "loads_record",
    "open_ro",
    "query_ro",
    "read_head_records",
    "read_json_object",
    "tail_lines",
    "tail_records",
    "walk_back",
    "walk_back_records",
]
