"""The ``work_record`` hook: the work results a Pi session demonstrated on its active branch
(a rewound sibling branch is not its work), read only from the file's bounded tail."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cargento.models import SessionRef
from cargento.testing.homes import make_context, snapshot_tree
from cargento_harness_pi import plugin
from cargento_harness_pi.fixtures import PiStore
from cargento_harness_pi.work import pi_work
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SID = "5f0c0000-0000-4000-8000-000000000001"
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)


def _store(store: PiStore) -> None:
    now = time.time()
    session = store.session(SID, cwd="/w/proj", at=now - 120)
    start = session.prompt("fix the flaky test", now - 110)
    abandoned = session.tool("bash", now - 100, arguments={"command": "rm -rf build"})
    session.tool_result(abandoned, "bash", "removed the build folder", now - 99)
    session.branch(start)
    call = session.tool("bash", now - 90, arguments={"command": "npm test"})
    session.tool_result(call, "bash", "x" * 400 + " Tests: 31 passed, 31 total", now - 89)
    failed = session.tool("read", now - 85, arguments={"path": "missing.txt"})
    session.tool_result(failed, "read", "ENOENT", now - 84, error=True)
    session.reply("Done.", now - 80)


def test_only_the_active_branchs_results_are_read_with_each_outputs_end(tmp_path: Path) -> None:
    _store(PiStore(tmp_path))
    ctx = make_context(tmp_path)
    (ref,) = plugin.discover(ctx=ctx).sessions
    before = snapshot_tree(tmp_path)
    record = plugin.work_record(ref=ref, ctx=ctx, tool_output=True)
    assert snapshot_tree(tmp_path) == before, "read-only"
    assert len(record.lines) == 2, "the rewound branch's rm -rf is not the session's work"
    assert record.lines[0].startswith("work result: bash npm test — output ends: ")
    assert record.lines[0].endswith("Tests: 31 passed, 31 total") and len(record.lines[0].split("ends: ")[1]) == 180
    assert record.lines[1] == "work result: read (the tool reported an error) — output ends: ENOENT"


def test_without_tool_output_nothing_is_read(tmp_path: Path) -> None:
    _store(PiStore(tmp_path))
    ctx = make_context(tmp_path)
    (ref,) = plugin.discover(ctx=ctx).sessions
    record = plugin.work_record(ref=ref, ctx=ctx, tool_output=False)
    assert record.lines == () and "work results" in record.describes


def test_a_flat_relocated_store_is_searched_by_id_and_a_missing_file_is_said(tmp_path: Path) -> None:
    folder = tmp_path / "sessions-here"
    _store(PiStore(tmp_path, root=folder, flat=True))
    env = {"PI_CODING_AGENT_SESSION_DIR": str(folder)}
    ref = SessionRef(harness="pi", session_id=SID, path="")
    found = plugin.work_record(ref=ref, ctx=make_context(tmp_path, env=env), tool_output=True)
    assert len(found.lines) == 2 and found.notes == ()
    missing = plugin.work_record(ref=ref, ctx=make_context(tmp_path), tool_output=True)
    assert missing.lines == () and missing.notes == ("the session's file was not found, so no work results were read",)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(JSONISH, max_size=8))
def test_the_session_reader_takes_any_records(records: list[Any]) -> None:
    for line in pi_work([r for r in records if isinstance(r, dict)]):
        assert isinstance(line, str)
