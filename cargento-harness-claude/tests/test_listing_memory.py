"""The listing's memory: what it keeps per old transcript, and what a full pass holds at once."""

from __future__ import annotations

import gc
import os
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from cargento_harness_claude import listing

OLD = 3000


def _old_transcripts(root: Path, count: int) -> Path:
    projects = root / "projects"
    folder = projects / "-old-history"
    folder.mkdir(parents=True)
    old = time.time() - 30 * 86400  # history, outside any window
    for i in range(count):
        path = folder / f"{i:08x}-0000-4000-8000-000000000000.jsonl"
        path.write_text('{"type":"user"}\n')
        os.utime(path, (old, old))
    return projects


def test_an_old_transcript_costs_a_few_hundred_bytes_and_a_full_pass_holds_no_folder_at_once(tmp_path: Path) -> None:
    projects = _old_transcripts(tmp_path, OLD)
    tracemalloc.start()
    try:
        found = listing.Listing(str(projects))
        assert len(found.scan()) == OLD
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        assert found.scan() == set()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    # The entry, its id, two of its four integers (its device is shared; a small size is
    # Python's own) and its place in two dicts: about 310 bytes. Its path, time and stamp kept
    # besides were about 300 more (and an os.stat_result and a dict per session 1.3 KB more).
    assert kept / OLD < 450, f"{kept / OLD:.0f} bytes a transcript"
    # A listed DirEntry keeps its stat: the whole folder listed first held ~950 bytes an entry.
    assert peak < 200 * OLD, f"a full pass over {OLD} unchanged transcripts peaked at {peak} bytes"


def test_a_session_in_two_project_folders_is_held_in_both_until_one_goes(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    sid = "5f1c2e6a-0000-4000-8000-000000000001"
    for name, mtime in (("-w-a", 1_000_000_000), ("-w-b", 1_000_000_500)):
        (projects / name).mkdir(parents=True)
        path = projects / name / f"{sid}.jsonl"
        path.write_text("{}\n")
        os.utime(path, (mtime, mtime))
    found = listing.Listing(str(projects))
    assert found.scan() == {sid}
    assert set(found.entries(sid)) == {"-w-a", "-w-b"}
    winner = found.winner(sid)
    assert winner is not None and winner.project == "-w-b", "the newest wins"
    (projects / "-w-b" / f"{sid}.jsonl").unlink()
    assert found.scan() == {sid}
    assert set(found.entries(sid)) == {"-w-a"}
    winner = found.winner(sid)
    assert winner is not None and winner.project == "-w-a"
    (projects / "-w-a" / f"{sid}.jsonl").unlink()
    found.scan()
    assert found.entries(sid) == {} and found.winner(sid) is None and found.by_sid == {}


def test_the_prefix_index_holds_a_set_only_where_ids_share_their_first_eight_characters(tmp_path: Path) -> None:
    from cargento.cache import HarnessCache
    from cargento.testing import make_context
    from cargento_harness_claude import discovery

    projects = _old_transcripts(tmp_path / ".claude", 200)
    twins = ["abcdef01-0000-4000-8000-000000000001", "abcdef01-0000-4000-8000-000000000002"]
    for sid in twins:
        (projects / "-old-history" / f"{sid}.jsonl").write_text('{"type":"user"}\n')
    ctx = make_context(tmp_path, cache=HarnessCache())
    discovery.discover(ctx)
    state = ctx.cache.get(discovery._STATE_KEY)
    assert isinstance(state, discovery._State)
    assert state.by_prefix is None, "no session-<prefix> team or task folder asked: no index is made"
    assert set(state.prefixed("abcdef01")) == set(twins), "the first question makes it"
    assert state.by_prefix is not None
    sets = {k: v for k, v in state.by_prefix.items() if not isinstance(v, str)}
    assert sets == {"abcdef01": set(twins)}, "one string for each id alone under its prefix"
    assert len(state.by_prefix) == 201
    assert set(state.prefixed("abcdef01")) == set(twins) and list(state.prefixed("00000007")) == [
        "00000007-0000-4000-8000-000000000000"
    ]
    (projects / "-old-history" / f"{twins[0]}.jsonl").unlink()
    discovery.discover(ctx)
    assert state.by_prefix["abcdef01"] == twins[1] and list(state.prefixed("abcdef01")) == [twins[1]]
    assert state.prefixed("ffffffff") == ()


def test_an_old_session_kept_by_discovery_costs_a_few_hundred_bytes(tmp_path: Path) -> None:
    """Everything discovery keeps for one session outside the window with its transcript
    alone: its listing entry, held as its files too (a files record with the path, time and
    stamp made for it were about 250 bytes more; a stat_result, one-entry dicts and sets and
    three empty lists once about 600 more), and whatever the path's length."""
    from cargento.cache import HarnessCache
    from cargento.testing import make_context
    from cargento_harness_claude import discovery

    projects = _old_transcripts(tmp_path / ".claude", OLD)
    discovery.discover(make_context(tmp_path, cache=HarnessCache()))  # every import and first-use cache
    path_length = len(str(next((projects / "-old-history").iterdir())))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        found, _ = discovery.discover(make_context(tmp_path, cache=HarnessCache()))
        per = (tracemalloc.get_traced_memory()[0] - before) / OLD
    finally:
        tracemalloc.stop()
    assert found.sessions == (), "history outside the window is listed, not on the board"
    # No path string is kept for it: the figure does not grow with this test's folder's length.
    assert per < 380, f"{per:.0f} bytes an old session ({path_length}-character paths)"


def test_a_project_folder_reached_through_a_link_is_listed_by_its_own_path(tmp_path: Path) -> None:
    """Project folders are listed through a descriptor of the folder: a link is followed, and
    each transcript is still named by its path under the projects folder (not the bare name
    a descriptor listing reports, nor the link's target)."""
    projects = tmp_path / "projects"
    projects.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sid = "5f1c2e6a-0000-4000-8000-000000000003"
    (elsewhere / f"{sid}.jsonl").write_text("{}\n")
    (elsewhere / sid).mkdir()  # its session folder
    (elsewhere / "notes.txt").write_text("not a transcript\n")
    os.symlink(elsewhere, projects / "-w-linked")
    os.mkfifo(elsewhere / "11111111-0000-4000-8000-000000000000.jsonl")
    found = listing.Listing(str(projects))
    assert found.scan() == {sid}
    entry = found.winner(sid)
    assert entry is not None and entry.path == str(projects / "-w-linked" / f"{sid}.jsonl")
    assert entry.project == "-w-linked" and found.has_folder(entry)
    fifo = projects / "-w-linked" / "11111111-0000-4000-8000-000000000000.jsonl"
    assert found.problems() == [f"skipped {fifo}: not a regular file (named pipe)"]


def test_an_old_entry_holds_no_path_time_or_stamp_until_asked(tmp_path: Path) -> None:
    """An entry keeps its session id, its figures and its folder's two shared strings; its
    path, time and stamp are made when asked, and not kept."""
    projects = _old_transcripts(tmp_path, 3)
    found = listing.Listing(str(projects))
    found.scan()
    folder = found.projects["-old-history"]
    first, second = (found.winner(f"{i:08x}-0000-4000-8000-000000000000") for i in range(2))
    assert first is not None and second is not None
    held = gc.get_referents(first)
    assert not [r for r in held if isinstance(r, datetime)], "no time is kept"
    assert not [r for r in held if isinstance(r, str) and r.endswith(".jsonl")], "no path is kept"
    assert first.stamp not in [r for r in held if isinstance(r, str)], "no stamp is kept"
    assert first.folder is folder.path and first.project is second.project, "the folder's strings are shared"
    assert first.st_dev is second.st_dev, "one device integer for the folder's entries"
    assert first.path == str(projects / "-old-history" / "00000000-0000-4000-8000-000000000000.jsonl")
    assert first.path is not first.path, "made when asked, not kept"


def test_an_old_transcript_only_session_is_held_as_its_listing_entry_until_read(tmp_path: Path) -> None:
    """Discovery holds no files record for an old session with its transcript alone: its
    listing entry stands for it. Read, it is the record a pass would have made, and stays (so
    what is set on it, as a pid file, is kept)."""
    from cargento.cache import HarnessCache
    from cargento.testing import make_context
    from cargento_harness_claude import discovery

    projects = _old_transcripts(tmp_path / ".claude", 3)
    ctx = make_context(tmp_path, cache=HarnessCache())
    _, index = discovery.discover(ctx)
    state = ctx.cache.get(discovery._STATE_KEY)
    assert isinstance(state, discovery._State)
    sid = "00000001-0000-4000-8000-000000000000"
    assert index.sessions.held(sid) is state.listing.winner(sid), "held as the listing's entry"
    assert list(index.sessions.made()) == [], "no files record for any of them"
    path = projects / "-old-history" / f"{sid}.jsonl"
    st = os.stat(path)
    files = index.sessions[sid]
    assert files == discovery.SessionFiles(
        session_id=sid,
        transcript=str(path),
        project_dir="-old-history",
        mtime=datetime.fromtimestamp(st.st_mtime, UTC),
        stamp=f"{st.st_size}:{st.st_mtime_ns}",
    )
    assert index.sessions.held(sid) is files and index.sessions.get(sid) is files, "made once, then held"
    files.pid_live = True
    assert index.sessions[sid].pid_live
