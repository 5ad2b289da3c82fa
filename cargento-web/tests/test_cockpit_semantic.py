"""The cockpit's semantic work history: what a project's sessions were observed doing, kept in
its own bounded store across restarts; an unreadable store is set aside, never written over."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
from cargento.board import Board, BoardSession
from cargento.testing.boards import board_of, board_row
from cargento_web.cockpit import own_stores
from cargento_web.cockpit.semantic import (
    MAX_PER_PROJECT,
    MAX_PROJECTS,
    PUBLISHED_PER_PROJECT,
    SEMANTIC_FILE,
    WINDOW,
    SemanticHistory,
)
from cargento_web.cockpit.tripwires import TRIPWIRES_FILE

# An hour ago: a flush prunes by the wall clock's 24-hour window, so a fixed date would age
# out of it (this test failed from a day after the date it once named).
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)


def row(sid: str, project: str | None, state: str = "working", detail: str = "running Bash") -> BoardSession:
    return board_row(
        sid,
        harness_label="Claude Code",
        identity=("claude", project or "", sid),
        project=project,
        cwd=None,
        title=f"title {sid}",
        state=state,
        detail=detail,
        last_active_at=None,
    )


def board(at: datetime, *rows: BoardSession) -> Board:
    return board_of(at, *rows)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_change_is_one_entry_a_repeat_is_none_and_a_restart_reads_it_back(tmp_path: Path) -> None:
    clock = Clock()
    history = SemanticHistory(tmp_path, clock=clock)
    assert history.observe(board(T0, row("a", "w/app"), row("b", None)))
    assert not history.observe(board(T0 + timedelta(seconds=5), row("a", "w/app"))), "nothing new was observed"
    clock.t += 60
    assert history.observe(board(T0 + timedelta(seconds=9), row("a", "w/app", "idle", "last active 4 s ago")))
    # At rest, the row's wording moves with the clock alone: not a new entry.
    assert not history.observe(board(T0 + timedelta(seconds=15), row("a", "w/app", "idle", "last active 10 s ago")))
    doc = history.document()
    assert list(doc["projects"]) == ["w/app"], "a session without a project is not a project's history"
    assert [(e["state"], e["doing"]) for e in doc["projects"]["w/app"]] == [
        ("idle", "idle"),
        ("working", "running Bash"),
    ]
    on_disk = json.loads((tmp_path / SEMANTIC_FILE).read_text())
    assert on_disk["version"] == 1 and len(on_disk["projects"]["w/app"]) == 2
    again = SemanticHistory(tmp_path)
    assert again.document()["projects"] == doc["projects"], "survives a restart"
    assert not again.observe(board(T0 + timedelta(seconds=20), row("a", "w/app", "idle", "last active 15 s ago")))
    ended = attrs.evolve(row("a", "w/app", "idle", "session ended · last active 1 s ago"), ended=True)
    assert again.observe(board(T0 + timedelta(seconds=25), ended))
    assert not again.observe(
        board(T0 + timedelta(seconds=30), attrs.evolve(ended, detail="session ended · last active 6 s ago"))
    )
    assert again.document()["projects"]["w/app"][0]["doing"] == "session ended"


def test_bounded_to_the_window_and_twenty_projects(tmp_path: Path) -> None:
    history = SemanticHistory(tmp_path, clock=Clock())
    for n in range(MAX_PROJECTS + 3):
        history.observe(board(T0 + timedelta(minutes=n), row(f"s{n}", f"w/p{n}")))
    assert len(history.document()["projects"]) == MAX_PROJECTS
    assert "w/p0" not in history.document()["projects"], "the project observed longest ago goes first"
    history.observe(board(T0 + WINDOW + timedelta(minutes=30), row("late", "w/late")))
    assert list(history.document()["projects"]) == ["w/late"], "nothing older than the 24-hour window is kept"


def test_sessions_that_come_and_go_leave_nothing_behind(tmp_path: Path) -> None:
    """What was last seen of each session is kept only while the session is on the board or in
    the history: a server that runs for days sees sessions come and go."""
    history = SemanticHistory(tmp_path, clock=Clock())
    bound = MAX_PROJECTS * MAX_PER_PROJECT
    for n in range(3 * bound):
        history.observe(board(T0 + timedelta(seconds=n), row(f"s{n}", "w/app"), row("stays", "w/app")))
    kept = history._last
    assert len(kept) <= bound + 2, f"{len(kept)} sessions remembered"
    assert "claude:stays" in kept and f"claude:s{3 * bound - 1}" in kept
    assert not history.observe(board(T0 + timedelta(hours=1), row("stays", "w/app"))), (
        "a session still on the board stays known"
    )


def test_a_read_back_history_holds_one_string_for_each_repeated_value(tmp_path: Path) -> None:
    history = SemanticHistory(tmp_path, clock=Clock())
    for n in range(40):
        history.observe(board(T0 + timedelta(seconds=n), row("a", "w/app", "working", f"step {n % 2}")))
    history.flush()
    entries = SemanticHistory(tmp_path).projects["w/app"]
    assert len(entries) == 40
    assert len({id(e["key"]) for e in entries}) == 1 and len({id(e["doing"]) for e in entries}) == 2


def test_an_unreadable_store_is_set_aside_reported_and_not_written_over(tmp_path: Path) -> None:
    (tmp_path / SEMANTIC_FILE).write_text("{half a write")
    history = SemanticHistory(tmp_path, clock=Clock())
    assert history.reset is not None and history.reset.status == "reset"
    assert "not valid JSON" in (history.reset.detail or "")
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(SEMANTIC_FILE + ".unreadable-")]
    assert len(aside) == 1 and aside[0].read_text() == "{half a write"
    history.observe(board(T0, row("a", "w/app")))
    history.flush()
    assert json.loads((tmp_path / SEMANTIC_FILE).read_text())["projects"]["w/app"], (
        "a fresh store beside the one set aside"
    )


def test_diagnose_names_the_tripwire_store_path_and_its_read_failure(tmp_path: Path) -> None:
    env = {"CARGENTO_HOME": str(tmp_path)}
    stores = {s.name: s for s in own_stores(env)}
    assert stores["tripwires"].status == "absent" and stores["tripwires"].path == str(tmp_path / TRIPWIRES_FILE)
    (tmp_path / TRIPWIRES_FILE).write_text('{"version": 1, "revision": 2, "rules": [{"id": 1}]}')
    stores = {s.name: s for s in own_stores(env)}
    assert stores["tripwires"].status == "unreadable"
    assert stores["tripwires"].detail == "a rule's id is not a short string"
    (tmp_path / TRIPWIRES_FILE).write_text('{"version": 1, "revision": 2, "rules": []}')
    assert {s.name: s for s in own_stores(env)}["tripwires"].detail == "0 rules, revision 2"
    assert {s.name: s for s in own_stores(env)}["semantic history"].status == "absent"


def test_the_diagnose_command_names_the_tripwire_store_and_why_it_cannot_be_read(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    (tmp_path / TRIPWIRES_FILE).write_text("{bad")
    env = {**os.environ, "CARGENTO_HOME": str(tmp_path), "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", "from cargento.cli import main; main()", "--diagnose"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    line = next(x for x in out.splitlines() if TRIPWIRES_FILE in x)
    assert str(tmp_path / TRIPWIRES_FILE) in line and "unreadable (not valid JSON)" in line


def test_diagnose_reads_no_store_its_flag_turns_off(tmp_path: Path) -> None:
    """Under ``--no-tripwires``, ``--no-history``, ``--no-dismiss`` and ``--no-annotations``
    ``--diagnose`` names each store as off without opening it: the same unreadable files that
    read as unreadable without the flags are never looked at."""
    import json
    import os
    import subprocess
    import sys

    from cargento_web.annotations.store import ANNOTATIONS_FILE
    from cargento_web.dismissals.store import DISMISSALS_FILE
    from cargento_web.history.store import HISTORY_FILE

    names = {TRIPWIRES_FILE: "--no-tripwires", HISTORY_FILE: "--no-history"}
    names |= {DISMISSALS_FILE: "--no-dismiss", ANNOTATIONS_FILE: "--no-annotations"}
    for name in names:
        (tmp_path / name).write_text("{bad")
    env = {**os.environ, "CARGENTO_HOME": str(tmp_path), "HOME": str(tmp_path)}

    def stores(*flags: str) -> dict[str, dict[str, str]]:
        out = subprocess.run(
            [sys.executable, "-c", "from cargento.cli import main; main()", "--diagnose", "--json", *flags],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        return {Path(s["path"]).name: s for s in json.loads(out)["own_stores"] if s["path"]}

    read = stores()
    assert {read[name]["status"] for name in names} == {"unreadable"}
    off = stores(*names.values())
    for name, flag in names.items():
        assert (off[name]["status"], off[name]["detail"]) == ("off", f"{flag}: not read or written this run")


def test_a_stale_first_officer_contributes_no_strip(tmp_path: Path) -> None:
    from cargento.models import SpacedockBoot
    from cargento_web.cockpit.spacedock import FRESH_S, WorkflowReader

    wf = tmp_path / "wf"
    wf.mkdir()
    (wf / "README.md").write_text("---\nstages: [a, b]\n---\n")
    (wf / "one.md").write_text("---\nstatus: a\n---\n")
    boot = SpacedockBoot(workflow_dirs=(str(wf),))
    fresh = attrs.evolve(row("fo", "w/app"), spacedock=boot, last_active_at=T0 - timedelta(seconds=FRESH_S - 60))
    stale = attrs.evolve(fresh, last_active_at=T0 - timedelta(seconds=FRESH_S + 60))
    [read] = WorkflowReader().read(board(T0, fresh))
    assert read.stages == ("a", "b") and read.current() == {"one": "a"}
    assert WorkflowReader().read(board(T0, stale)) == [], "absent rather than guessed from an old boot"


def test_the_store_keeps_no_more_of_a_project_than_the_document_carries(tmp_path: Path) -> None:
    """An entry past those the document carries is never shown: the store keeps as many, in
    memory and on disk, so it reaches its bound within minutes of a busy board, not hours."""
    history = SemanticHistory(tmp_path, clock=Clock())
    for n in range(3 * PUBLISHED_PER_PROJECT):
        history.observe(board(T0 + timedelta(seconds=n), row("a", "w/app", "working", f"step {n}")))
    history.flush()
    published = history.document()["projects"]["w/app"]
    assert len(published) == PUBLISHED_PER_PROJECT and published[0]["doing"] == f"step {3 * PUBLISHED_PER_PROJECT - 1}"
    assert len(history.projects["w/app"]) == PUBLISHED_PER_PROJECT, "nothing held that no page is sent"
    on_disk = json.loads((tmp_path / SEMANTIC_FILE).read_text())["projects"]["w/app"]
    assert len(on_disk) == PUBLISHED_PER_PROJECT


def test_a_store_written_with_a_larger_bound_reads_back_as_what_the_document_carries(tmp_path: Path) -> None:
    entries = [
        {
            "at": (T0 + timedelta(seconds=n)).isoformat(),
            "key": "claude:a",
            "harness": "claude",
            "title": "t",
            "state": "working",
            "doing": f"step {n}",
        }
        for n in range(200)
    ]
    (tmp_path / SEMANTIC_FILE).write_text(json.dumps({"version": 1, "projects": {"w/app": entries}}))
    history = SemanticHistory(tmp_path, clock=Clock())
    assert [e["doing"] for e in history.projects["w/app"]] == [f"step {n}" for n in range(150, 200)]
    assert history.document()["projects"]["w/app"][0]["doing"] == "step 199"
