"""The ``/api/data`` document of successive boards, serialising again only the rows that moved.

The builder hands on the very row object for a session that did not change (and the hub's
marks keep that), so a row's JSON is a function of the row object: :class:`DocumentRenderer`
keeps each row's redacted, serialised bytes while the row object is on the board, and a
revision (one event, one append) serialises the rows that are new objects and the board's head
(counts, strip, the features' keys) alone; the kept rows go into the document as they are
(``orjson.Fragment``). The bytes are exactly :func:`cargento_web.app.document`'s: the same
converter, the same redaction (which is per string), the same key order.

What is kept is each shown row's JSON once (right-sized), about the document's length; the
document itself is made for each fetch and let go once sent.
"""

from __future__ import annotations

from typing import Any

import attrs
import orjson
from cargento import serde
from cargento.board import Board, BoardSession
from cargento.redact import redact_tree

__all__ = ["DocumentRenderer", "row_json"]


def row_json(row: BoardSession, memo: dict[str, str] | None = None) -> bytes:
    """One row as it stands in the document: unstructured, redacted, serialised, right-sized.
    *memo*: the redactions of strings already met in this document (see ``redact_tree``)."""
    tree = redact_tree(serde.unstructure(row), memo=memo)
    return serde.right_sized(orjson.dumps(tree, option=orjson.OPT_NON_STR_KEYS))


class DocumentRenderer:
    """Renders one flavour's boards, keeping the JSON of the rows on the last one rendered."""

    def __init__(self) -> None:
        #: The last rendered board's rows and their JSON, by the row object's id.
        self._rows: dict[int, tuple[BoardSession, bytes]] = {}
        #: Rows serialised, since the start (tests).
        self.rows_rendered = 0

    def render(self, board: Board, extras: dict[str, Any] | None = None) -> bytes:
        """The document of *board* with the features' top-level keys *extras* (never replacing
        a board key), every string redacted."""
        kept = self._rows
        rows: dict[int, tuple[BoardSession, bytes]] = {}
        parts: list[orjson.Fragment] = []
        # The rows repeat most of their strings (a state, a harness, a project on every row):
        # each distinct one is redacted once per render, as in one pass over the whole tree.
        memo: dict[str, str] = {}
        for row in board.sessions:
            hit = kept.get(id(row))
            if hit is None or hit[0] is not row:
                hit = (row, row_json(row, memo))
                self.rows_rendered += 1
            rows[id(row)] = hit
            parts.append(orjson.Fragment(hit[1]))
        self._rows = rows
        head: dict[str, Any] = serde.unstructure(attrs.evolve(board, sessions=()))
        for key, value in (extras or {}).items():
            head.setdefault(key, value)
        head = redact_tree(head, memo=memo)
        # The rows take the place the board's field has (the head's keys keep their order).
        head["sessions"] = parts
        return orjson.dumps(head, option=orjson.OPT_NON_STR_KEYS)
