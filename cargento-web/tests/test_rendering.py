"""The /api/data document of successive boards (cargento_web.rendering): the bytes
cargento_web.app.document makes, with only the rows that are new objects serialised again."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import attrs
from cargento.board import Board, BoardSession
from cargento.testing.boards import T0, board_of, board_row
from cargento.testing.redactions import record_redactions
from cargento_web.app import document
from cargento_web.rendering import DocumentRenderer
from hypothesis import given, settings
from hypothesis import strategies as st

SECRET = "ghp_" + "a1B2c3D4" * 5


def _row(n: int) -> BoardSession:
    return board_row(
        f"{n:08x}-0000-4000-8000-000000000000",
        title=f"session {n}",
        state=random.Random(n).choice(["idle", "working", "needs_input"]),
        detail=f"running Bash: pytest -k case_{n}",
    )


def _board(rows: list[BoardSession], n: int) -> Board:
    return board_of(T0 + timedelta(seconds=n), *rows, revision=n)


def test_one_row_moved_serialises_that_row_alone() -> None:
    rows = [_row(n) for n in range(50)]
    renderer = DocumentRenderer()
    first = _board(rows, 1)
    assert renderer.render(first) == document(first)
    assert renderer.rows_rendered == 50
    rows[7] = attrs.evolve(rows[7], title=f"now with {SECRET}", state="working")
    second = _board(rows, 2)
    body = renderer.render(second, {"history": {"note": f"token {SECRET}"}})
    assert renderer.rows_rendered == 51
    assert body == document(second, {"history": {"note": f"token {SECRET}"}})
    assert SECRET not in body.decode()
    # The same board again (a second tab): nothing is serialised again.
    assert renderer.render(second) == document(second)
    assert renderer.rows_rendered == 51


def test_a_string_every_row_carries_is_redacted_once_per_render(monkeypatch: Any) -> None:
    rows = [_row(n) for n in range(40)]
    seen = record_redactions(monkeypatch)
    board = _board(rows, 1)
    DocumentRenderer().render(board)
    assert seen, "the rows' strings go through redaction"
    assert len(seen) == len(set(seen)), "a string the rows share (a harness, a project) is redacted once"


_edit = st.tuples(st.sampled_from(["replace", "move", "drop", "add"]), st.integers(0, 10**6))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 30), st.lists(st.lists(_edit, max_size=4), min_size=1, max_size=6), st.booleans())
def test_every_render_is_the_document_of_the_board(size: int, steps: list[list[tuple[str, int]]], extras: bool) -> None:
    rows = [_row(n) for n in range(size)]
    renderer = DocumentRenderer()
    made = 0
    for step, edits in enumerate(steps):
        before = {id(r) for r in rows}
        for what, k in edits:
            if what == "add" or not rows:
                rows.insert(k % (len(rows) + 1), _row(1000 + k))
            elif what == "replace":
                i = k % len(rows)
                rows[i] = attrs.evolve(rows[i], title=f"edit {k} {SECRET}", tasks_done=k)
            elif what == "move":
                rows.insert(k % len(rows), rows.pop(k % len(rows)))
            else:
                rows.pop(k % len(rows))
        board = _board(rows, step)
        given_extras: dict[str, Any] | None = {"feature": [SECRET, step]} if extras else None
        assert renderer.render(board, given_extras) == document(board, given_extras)
        made += sum(id(r) not in before for r in rows) if step else len(rows)
        assert renderer.rows_rendered == made, "a row that stood is not serialised again"
