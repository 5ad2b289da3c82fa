"""``serde.unstructure`` writes what the cattrs orjson converter wrote for the same models.

The board document, the diagnose report and every row are written by a walk over the attrs
fields, not by cattrs' generated functions (which cost each first board about 20 ms to make and
compile). The two must agree on every model a page, a consumer or a test reads: real boards
(the demo of every installed harness, as it moves), and Hypothesis' boards and reports.
"""

from __future__ import annotations

import enum
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import attrs
import orjson
import pytest
from cargento import serde
from cargento.board import Board, BoardBuilder, BoardSession
from cargento.demo import Demo
from cargento.diagnose import Report
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CATTRS = serde.make_converter()


def _as_json_reads(tree: Any) -> Any:
    """*tree* as JSON reads it back: a tuple and a list are one array."""
    if isinstance(tree, (list, tuple)):
        return [_as_json_reads(item) for item in tree]
    if isinstance(tree, dict):
        return {key: _as_json_reads(value) for key, value in tree.items()}
    return tree


def _same_as_cattrs(value: Any) -> None:
    try:
        theirs = CATTRS.unstructure(value)
    except (ValueError, OverflowError) as exc:  # a naive datetime of year 1 has no UTC time
        with pytest.raises(type(exc)):
            serde.unstructure(value)
        return
    mine = serde.unstructure(value)
    assert _as_json_reads(mine) == _as_json_reads(theirs)
    assert list(mine) == list(theirs), "the keys keep the fields' order"


def _at(moment: datetime) -> Callable[[], datetime]:
    return lambda: moment


def test_the_demo_boards_of_every_harness_are_written_as_cattrs_wrote_them() -> None:
    registry = load_registry()
    assert len(registry.loaded()) >= 10, "the ten harness plugins are installed in the suite's environment"
    start = datetime.now(UTC).replace(microsecond=0)
    demo = Demo(registry, base_env={"HOME": "/nonexistent"}, clock=lambda: start, interval_s=3600)
    demo.start()
    try:
        rows = 0
        for offset in (0, 8, 20, 47, 95):
            moment = start + timedelta(seconds=offset)
            demo.step(moment)
            builder = BoardBuilder(
                registry, env=demo.env, home=demo.home, clock=_at(moment), processes=StaticProcesses()
            )
            board = builder.build()
            rows += len(board.sessions)
            _same_as_cattrs(board)
            assert serde.dumps(board) == orjson.dumps(CATTRS.unstructure(board), option=orjson.OPT_NON_STR_KEYS)
        assert rows >= 50, "the demo's boards have rows of every harness"
    finally:
        demo.stop()


_settings = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@_settings
@given(st.from_type(BoardSession))
def test_any_row_is_written_as_cattrs_wrote_it(row: BoardSession) -> None:
    _same_as_cattrs(row)


@_settings
@given(st.from_type(Board))
def test_any_board_is_written_as_cattrs_wrote_it(board: Board) -> None:
    _same_as_cattrs(board)


@_settings
@given(st.from_type(Report))
def test_any_diagnose_report_is_written_as_cattrs_wrote_it(report: Report) -> None:
    _same_as_cattrs(report)


class Colour(enum.StrEnum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


@attrs.frozen
class Everything:
    when: datetime
    day: date
    colour: Colour
    size: Size
    raw: bytes
    empty: bytes
    tags: frozenset[str]
    by_colour: dict[Colour, int]
    by_number: dict[int, str]
    nested: tuple[tuple[int, ...], ...]
    _private: str
    hidden: int = attrs.field(init=False, default=7)


def test_each_kind_of_value_is_written_as_cattrs_wrote_it() -> None:
    value = Everything(
        when=datetime(2026, 12, 5, 12, 0, 0, 250000, tzinfo=timezone(timedelta(hours=2))),
        day=date(2026, 12, 5),
        colour=Colour.RED,
        size=Size.BIG,
        raw=b"\x00key",
        empty=b"",
        tags=frozenset({"a"}),
        by_colour={Colour.RED: 1},
        by_number={1: "one"},
        nested=((1, 2), ()),
        private="p",
    )
    _same_as_cattrs(value)
    tree = serde.unstructure(value)
    assert tree["when"] == "2026-12-05T10:00:00.250000Z", "an aware UTC ISO string with Z"
    assert "hidden" not in tree and tree["_private"] == "p", "init fields by their attribute names"
    assert serde.dumps(value) == orjson.dumps(CATTRS.unstructure(value), option=orjson.OPT_NON_STR_KEYS)


def test_reading_is_still_strict_and_writing_reads_back() -> None:
    value = Everything(
        when=datetime(2026, 12, 5, tzinfo=UTC),
        day=date(2026, 12, 5),
        colour=Colour.RED,
        size=Size.BIG,
        raw=b"k",
        empty=b"",
        tags=frozenset({"a", "b"}),
        by_colour={Colour.RED: 1},
        by_number={1: "one"},
        nested=((1,),),
        private="p",
    )
    assert serde.loads(serde.dumps(value), Everything) == value
    with pytest.raises(Exception) as refused:
        serde.structure({**serde.unstructure(value), "unknown": 1}, Everything)
    assert "unknown" in repr(getattr(refused.value, "exceptions", refused.value)), "unknown keys are refused"


def test_writing_imports_no_cattrs() -> None:
    code = (
        "import sys\n"
        "from datetime import UTC, datetime\n"
        "from cargento import serde\n"
        "from cargento.testing.boards import board_of, board_row\n"
        "serde.dumps(board_of(datetime.now(UTC), board_row('s1')))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cattrs'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
