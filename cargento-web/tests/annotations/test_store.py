"""The annotation store on its own: revisions, bounds, eviction order, concurrent writers,
files it must not write over, and a reader that never raises whatever the bytes."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest
from cargento_web.annotations import records
from cargento_web.annotations import store as store_module
from cargento_web.annotations.records import Discard, Foreign, Malformed, Words
from cargento_web.annotations.store import (
    ANNOTATIONS_FILE,
    AnnotationStore,
    Change,
    Draft,
    on_any_discard,
    read_document,
)
from hypothesis import given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _goal(text: str, expected: int | None = None) -> Change:
    return Change(set_goal=True, goal=text, expected_revision=expected)


def _lines(texts: list[str], expected: int | None) -> Change:
    return Change(lines=tuple(Draft(text=t) for t in texts), expected_revision=expected)


def test_revisions_are_numbered_and_never_edited(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE)
    first = store.annotate("claude", "s1", _goal("ship the parser"), T0)
    assert (first.outcome, first.persisted) == ("stored", True)
    second = store.annotate("claude", "s1", _lines(["tests pass"], 1), T0 + timedelta(minutes=1))
    assert second.outcome == "stored"
    entry = store.get("claude", "s1")
    assert isinstance(entry, Words)
    assert [r.number for r in entry.revisions] == [1, 2]
    assert entry.revisions[0].goal == "ship the parser" and entry.revisions[0].lines == ()
    assert entry.current.goal == "ship the parser", "saving the lines leaves the goal alone"
    assert [line.text for line in entry.current.lines] == ["tests pass"]
    again = store.annotate("claude", "s1", _lines(["tests pass"], 2), T0 + timedelta(minutes=2))
    assert (again.outcome, again.persisted) == ("unchanged", True)
    entry = store.get("claude", "s1")
    assert isinstance(entry, Words) and entry.current.number == 2, "the same words mint no revision"


def test_a_list_from_an_older_revision_or_without_one_is_refused(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE)
    store.annotate("codex", "s", _lines(["a"], None), T0)
    store.annotate("codex", "s", _lines(["a", "b"], 1), T0 + timedelta(seconds=1))
    stale = store.annotate("codex", "s", _lines(["c"], 1), T0 + timedelta(seconds=2))
    assert (stale.outcome, stale.persisted) == ("refused", False)
    assert stale.reason is not None and "revision 2" in stale.reason
    blind = store.annotate("codex", "s", _lines(["c"], None), T0 + timedelta(seconds=3))
    assert blind.outcome == "refused"


def test_sixteen_revisions_kept_and_256_entries_discards_evicted_first(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE, max_records=4, max_revisions=3)
    for i in range(5):
        store.annotate("claude", "r", _goal(f"goal {i}"), T0 + timedelta(seconds=i))
    entry = store.get("claude", "r")
    assert isinstance(entry, Words)
    assert [r.number for r in entry.revisions] == [3, 4, 5], "oldest revisions go, numbers keep counting"
    store.annotate("claude", "d", _goal("to discard"), T0 + timedelta(seconds=10))
    store.annotate("claude", "d", Change(clear=True), T0 + timedelta(seconds=11))
    store.annotate("claude", "old", _goal("old words"), T0 + timedelta(seconds=12))
    store.annotate("claude", "new", _goal("new words"), T0 + timedelta(seconds=13))
    assert len(store.entries()) == 4
    store.annotate("claude", "newest", _goal("newest"), T0 + timedelta(seconds=14))
    keys = {e.sid for e in store.entries()}
    assert "d" not in keys, "a discard record goes before any words"
    assert keys == {"r", "old", "new", "newest"}
    store.annotate("claude", "fifth", _goal("fifth"), T0 + timedelta(seconds=15))
    assert {e.sid for e in store.entries()} == {"old", "new", "newest", "fifth"}, "then the oldest words"


def test_discard_keeps_no_text_and_a_new_save_continues_the_numbers(tmp_path: Path) -> None:
    path = tmp_path / ANNOTATIONS_FILE
    store = AnnotationStore(path)
    discarded: list[tuple[str, str]] = []
    store.on_discard(lambda h, s: discarded.append((h, s)))
    elsewhere: list[tuple[str, str]] = []
    remove = on_any_discard(lambda h, s: elsewhere.append((h, s)))
    store.annotate("claude", "s", _goal("secret plan"), T0)
    store.add_reading("claude", "s", {"kind": "reading", "verdict": "consistent"}, T0)
    assert store.annotate("claude", "s", Change(clear=True), T0 + timedelta(seconds=1)).outcome == "stored"
    entry = store.get("claude", "s")
    assert isinstance(entry, Discard) and entry.checked and entry.last_revision == 1
    assert "secret plan" not in path.read_text() and "consistent" not in path.read_text()
    assert discarded == [("claude", "s")]
    remove()
    assert elsewhere == [("claude", "s")], "a listener on every instance hears the discard too"
    assert store.annotate("claude", "s", Change(clear=True), T0).outcome == "refused"
    assert store.add_reading("claude", "s", {"kind": "reading"}, T0).outcome == "refused"
    store.annotate("claude", "s", _goal("fresh"), T0 + timedelta(seconds=2))
    entry = store.get("claude", "s")
    assert isinstance(entry, Words) and entry.current.number == 2 and entry.readings == ()


def test_origins_keep_each_lines_own_source(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE)
    adopted = Change(
        lines=(Draft(text="same", entry="your prompt"), Draft(text="same")),
        origins_sent=True,
    )
    store.annotate("claude", "s", adopted, T0)
    swapped = Change(
        lines=(Draft(text="same", origin=1), Draft(text="same", origin=0)), origins_sent=True, expected_revision=1
    )
    result = store.annotate("claude", "s", swapped, T0 + timedelta(seconds=1))
    assert result.outcome == "stored", "the same texts in another order are other words"
    entry = store.get("claude", "s")
    assert isinstance(entry, Words)
    assert [(line.source, line.entry) for line in entry.current.lines] == [("typed", None), ("entry", "your prompt")]


def test_settle_through_is_recorded_against_the_current_revision(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE)
    assert store.annotate("claude", "s", Change(settle_through=T0), T0).outcome == "refused"
    store.annotate("claude", "s", _goal("g"), T0)
    later = T0 + timedelta(minutes=5)
    assert store.annotate("claude", "s", Change(settle_through=later), later).outcome == "stored"
    assert store.annotate("claude", "s", Change(settle_through=later), later).outcome == "unchanged"
    entry = store.get("claude", "s")
    assert isinstance(entry, Words) and entry.unsettled_after == later
    store.annotate("claude", "s", _goal("g2"), later + timedelta(minutes=1))
    entry = store.get("claude", "s")
    assert isinstance(entry, Words) and entry.unsettled_after == later + timedelta(minutes=1)


def test_an_unreadable_file_is_never_written_over(tmp_path: Path) -> None:
    path = tmp_path / ANNOTATIONS_FILE
    path.write_bytes(b'{"schema": 1, "entries": [')
    store = AnnotationStore(path)
    result = store.annotate("claude", "s", _goal("g"), T0)
    assert (result.outcome, result.persisted) == ("untrusted", False)
    assert path.read_bytes() == b'{"schema": 1, "entries": ['
    assert store.view().state == "untrusted"
    path.unlink()
    assert store.annotate("claude", "s", _goal("g"), T0).outcome == "stored", "moved away, the store works again"


def test_a_newer_builds_entry_is_kept_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / ANNOTATIONS_FILE
    newer = {"v": 2, "kind": "words", "harness": "claude", "sid": "n", "goals": ["something new"]}
    path.write_text(json.dumps({"schema": 1, "entries": [newer]}))
    store = AnnotationStore(path)
    assert isinstance(store.get("claude", "n"), Foreign)
    assert store.annotate("claude", "n", _goal("g"), T0).outcome == "unreadable"
    assert store.annotate("claude", "other", _goal("g"), T0).outcome == "stored"
    written = orjson.loads(path.read_bytes())["entries"]
    assert newer in written, "a newer entry survives another session's write byte for byte"


def _disk_full(path: Path, data: bytes | str, *, durable: bool = True) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_failed_write_holds_the_words_for_this_run(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    store = AnnotationStore(folder / ANNOTATIONS_FILE)
    # A directory squatting on the temporary file's place is not enough for root, so the
    # disk is made to refuse the write the way a full one does.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_module, "write_atomic", _disk_full)
        result = store.annotate("claude", "s", _goal("held"), T0)
    assert (result.outcome, result.persisted) == ("unwritable", False)
    assert result.reason is not None and "held for this run only" in result.reason
    entry = store.get("claude", "s")
    assert isinstance(entry, Words) and entry.current.goal == "held"
    assert not (folder / ANNOTATIONS_FILE).exists()
    store.annotate("claude", "t", _goal("other"), T0 + timedelta(seconds=1))
    assert {e["sid"] for e in orjson.loads((folder / ANNOTATIONS_FILE).read_bytes())["entries"]} == {"s", "t"}


def test_an_entry_that_cannot_fit_even_alone_is_not_written_or_held(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE, max_bytes=200)
    result = store.annotate("claude", "s", _goal("x" * 200), T0)
    assert (result.outcome, result.persisted) == ("unwritable", False)
    assert store.get("claude", "s") is None
    assert not (tmp_path / ANNOTATIONS_FILE).exists()


def _write_many(path: str, prefix: str, count: int) -> None:
    store = AnnotationStore(Path(path))
    for i in range(count):
        store.annotate("claude", f"{prefix}-{i}", _goal(f"{prefix} {i}"), datetime.now(UTC))


_WRITER = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from cargento_web.annotations.store import AnnotationStore, Change
store = AnnotationStore(Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    result = store.annotate("claude", f"{sys.argv[2]}-{i}", Change(set_goal=True, goal=f"goal {i}"), datetime.now(UTC))
    assert result.outcome == "stored", result
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / ANNOTATIONS_FILE
    workers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, "20"]) for name in ("a", "b")]
    for w in workers:
        assert w.wait(60) == 0
    sids = {e.sid for e in AnnotationStore(path).entries()}
    assert sids == {f"{p}-{i}" for p in ("a", "b") for i in range(20)}


def test_two_threads_on_two_store_objects_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / ANNOTATIONS_FILE
    threads = [threading.Thread(target=_write_many, args=(str(path), name, 25)) for name in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(AnnotationStore(path).entries()) == 50


def test_a_file_from_a_newer_build_is_untrusted() -> None:
    with pytest.raises(Malformed, match="newer Cargento"):
        read_document(b'{"schema": 9, "entries": []}')


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
_entry_like = st.fixed_dictionaries(
    {
        "v": st.sampled_from([1, 2, 0, -1, True, "1"]),
        "kind": st.sampled_from(["words", "discard", "other", None]),
        "harness": st.sampled_from(["claude", "", 3]),
        "sid": st.text(max_size=8),
    },
    optional={
        "revisions": st.lists(
            st.fixed_dictionaries(
                {"n": st.integers(-1, 20), "at": st.sampled_from(["2026-12-01T12:00:00Z", "nope", 5])},
                optional={"goal": _json, "lines": _json, "goal_source": _json},
            ),
            max_size=3,
        ),
        "readings": _json,
        "at": _json,
        "checked": _json,
        "settled_through": _json,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        _json.map(orjson.dumps),
        st.lists(_entry_like, max_size=4).map(lambda es: orjson.dumps({"schema": 1, "entries": es})),
    )
)
def test_the_reader_reads_whole_or_refuses_and_never_raises_anything_else(data: bytes) -> None:
    try:
        entries = read_document(data)
    except Malformed:
        return
    for entry in entries.values():
        assert isinstance(entry, Words | Discard | Foreign)
        if isinstance(entry, Words):
            assert entry.revisions and all(len(r.lines) <= 6 for r in entry.revisions)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=120))
def test_whatever_the_file_holds_a_store_over_it_answers_with_an_outcome(tmp_path_factory: object, data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ANNOTATIONS_FILE
        path.write_bytes(data)
        result = AnnotationStore(path).annotate("claude", "s", _goal("g"), T0)
        assert result.outcome in ("stored", "untrusted")
        if result.outcome == "untrusted":
            assert path.read_bytes() == data


def test_forget_removes_discard_records_and_keeps_typed_words(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_FILE)
    assert store.forget_discards(T0).outcome == "unchanged"
    store.annotate("claude", "kept", _goal("kept words"), T0)
    store.annotate("claude", "gone", _goal("x"), T0)
    store.annotate("claude", "gone", Change(clear=True), T0)
    assert store.forget_discards(T0).outcome == "stored"
    assert [e.sid for e in store.entries()] == ["kept"]


def test_forget_removes_the_discard_records_and_keeps_the_words(tmp_path: Path) -> None:
    from cargento_web.annotations import forget

    store = AnnotationStore(tmp_path / "cargento-annotations.json")
    assert store.annotate("claude", "kept", _goal("ship the parser"), T0).outcome == "stored"
    assert store.annotate("claude", "gone", _goal("a wrong turn"), T0).outcome == "stored"
    assert store.annotate("claude", "gone", Change(clear=True), T0 + timedelta(seconds=1)).outcome == "stored"
    [said] = forget(tmp_path)
    assert "removed the discard records" in said
    fresh = AnnotationStore(tmp_path / "cargento-annotations.json")
    assert fresh.get("claude", "gone") is None
    kept = fresh.get("claude", "kept")
    assert isinstance(kept, Words) and kept.current is not None and kept.current.goal == "ship the parser"
    assert "no discard records" in forget(tmp_path)[0]


def test_a_line_kept_through_revisions_is_read_back_as_one_object(tmp_path: Path) -> None:
    """A checklist mostly survives a new revision: read back, each line stored again is the one
    object the first revision made (a store at its cap held 10.0 MB as a line per revision,
    5.4 MB shared), for every entry of the read."""
    path = tmp_path / ANNOTATIONS_FILE
    store = AnnotationStore(path)
    for sid in ("a", "b"):
        store.annotate("claude", sid, _lines(["tests pass", "docs say so"], None), T0)
        store.annotate("claude", sid, _goal("ship it", 1), T0 + timedelta(seconds=1))
        store.annotate("claude", sid, _lines(["tests pass", "docs say so", "a release note"], 2), T0)
    again = AnnotationStore(path)
    first, second = (again.get("claude", sid) for sid in ("a", "b"))
    assert isinstance(first, Words) and isinstance(second, Words)
    kept = [line for revision in (*first.revisions, *second.revisions) for line in revision.lines]
    assert [line.text for line in kept].count("tests pass") == 6
    assert len({id(line) for line in kept if line.text == "tests pass"}) == 1
    assert len({id(line) for line in kept}) == 3


class _Forgetful(dict[tuple[object, object, object], object]):
    """A memo that never remembers: every line is made afresh."""

    def get(self, key: object, default: object = None) -> object:
        return default


_stored_line = st.fixed_dictionaries(
    # Mostly lines this build writes, now and then one it refuses.
    {"text": st.sampled_from(["tests pass", "docs say so"] * 8 + ["two\nlines", "", 5, "x" * 241])},
    optional={
        "source": st.sampled_from(["typed", "entry"] * 6 + ["bogus", None]),
        "entry": st.sampled_from([None, "your prompt"] * 6 + [3]),
        "extra": st.just(1),
    },
)
_words_with_lines = st.builds(
    lambda sid, revisions: {
        "v": 1,
        "kind": "words",
        "harness": "claude",
        "sid": sid,
        "revisions": [{"n": n + 1, "at": "2026-12-01T12:00:00Z", "lines": lines} for n, lines in enumerate(revisions)],
    },
    st.sampled_from(["a", "b", "c"]),
    st.lists(st.lists(_stored_line, max_size=3), min_size=1, max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_words_with_lines, max_size=4) | st.lists(_words_with_lines | _entry_like, max_size=3))
def test_lines_shared_within_a_read_read_as_lines_made_one_by_one(entries: list[object]) -> None:
    """Whatever the stored lines, a read that shares them across revisions and entries reads
    the same entries, and refuses the same files for the same reason, as making each alone."""
    data = orjson.dumps({"schema": 1, "store": "annotations", "entries": entries})
    try:
        alone = _made_one_by_one(entries)
    except Malformed as exc:
        with pytest.raises(Malformed) as shared_refused:
            read_document(data)
        assert str(shared_refused.value) == str(exc)
        return
    assert read_document(data) == alone


def _made_one_by_one(entries: list[object]) -> dict[object, object]:
    """What read_document reads, each line made afresh."""
    out: dict[object, object] = {}
    for item in entries:
        entry = records.entry_from_json(item, _Forgetful())  # type: ignore[arg-type]
        if entry.key in out:
            raise Malformed(f"it holds two entries for {entry.harness} {entry.sid}")
        out[entry.key] = entry
    return out
