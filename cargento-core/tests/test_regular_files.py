"""Readers open only regular files, and folder walks survive loops, pipes and dangling links.

Every check that could block (a plain ``open()`` of a named pipe waits for a writer) runs in a
child process with a timeout, so a regression fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from cargento.cache import HarnessCache
from cargento.readers import (
    NotRegularFile,
    cached_head,
    glob_files,
    open_regular,
    read_regular,
    scan_dir,
    split_unreadable,
    unreadable,
    why,
)

_EVERY_READER = r"""
import sys
from cargento.cache import HarnessCache
from cargento.errors import HarnessError
from cargento.readers import (JsonlFollower, cached_head, follow_summary, head_bytes, read_head_records,
    tail_lines, walk_back)
from cargento.readers.sqlite import is_wal_mode, wal_has_frames
path = sys.argv[1]
def attempt(name, call):
    try:
        call()
        print(name, "read")
    except (OSError, HarnessError) as exc:
        print(name, "refused", type(exc).__name__)
attempt("tail", lambda: tail_lines(path))
attempt("walk_back", lambda: list(walk_back(path)))
attempt("head", lambda: head_bytes(path, 10))
attempt("head_records", lambda: read_head_records(path))
attempt("follower", lambda: JsonlFollower(path).poll())
attempt("follow_summary", lambda: follow_summary(HarnessCache(), "k", path, list, lambda s, r: s.append(r)))
problems = []
print("cached_head", cached_head(HarnessCache(), "k", path, lambda p: (head_bytes(p, 5), True), problems=problems), problems)
print("is_wal_mode", is_wal_mode(path))
print("wal_has_frames", wal_has_frames(path[: -len("-wal")]) if path.endswith("-wal") else None)
"""


def test_no_reader_blocks_on_a_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-c", _EVERY_READER, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    for reader in ("tail", "walk_back", "head", "head_records"):
        assert lines[reader] == "refused NotRegularFile", reader
    assert lines["follower"] == "refused NotRegularFile"
    assert lines["follow_summary"] == "refused HarnessDataMissing"
    assert lines["cached_head"] == f"None ['{fifo}: not a regular file (named pipe)']"
    assert lines["is_wal_mode"] == "False"


def test_a_pipe_in_place_of_a_wal_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "store.db-wal"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-c", _EVERY_READER, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "wal_has_frames False" in done.stdout


def test_open_regular_reads_files_and_names_what_it_refuses(tmp_path: Path) -> None:
    plain = tmp_path / "a.jsonl"
    plain.write_bytes(b'{"a":1}\n')
    link = tmp_path / "link.jsonl"
    link.symlink_to(plain.name)
    assert read_regular(link) == b'{"a":1}\n' and read_regular(plain, 3) == b'{"a'
    with open_regular(plain) as fh:
        assert fh.read() == b'{"a":1}\n'
    with pytest.raises(NotRegularFile) as folder:
        open_regular(tmp_path)
    assert why(folder.value) == "not a regular file (directory)"
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop.name)
    with pytest.raises(OSError) as looped:
        open_regular(loop)
    assert unreadable(loop, looped.value) == f"{loop}: symlink loop"
    assert split_unreadable(f"cannot list {tmp_path}: permission denied") == (str(tmp_path), "permission denied")
    assert split_unreadable(f"{loop}: line 1 carries no sessionId; skipped") is None


def test_cached_head_names_an_unreadable_file_and_forgets_it(tmp_path: Path) -> None:
    cache = HarnessCache()
    problems: list[str] = []
    folder = tmp_path / "x.jsonl"
    folder.mkdir()
    assert cached_head(cache, "k", str(folder), lambda p: (b"", True), problems=problems) is None
    assert problems == [f"{folder}: not a regular file (directory)"]
    assert cached_head(cache, "k", str(tmp_path / "gone.jsonl"), lambda p: (b"", True), problems=problems) is None
    assert len(problems) == 1, "a missing file is not a problem"


def test_scan_and_glob_skip_and_name_each_bad_entry_only(tmp_path: Path) -> None:
    day = tmp_path / "2026" / "01" / "02"
    day.mkdir(parents=True)
    good = [day / "rollout-a.jsonl", day / "rollout-b.jsonl"]
    for path in good:
        path.write_text("{}\n")
    os.mkfifo(day / "rollout-c.jsonl")
    (day / "rollout-d.jsonl").symlink_to("rollout-d.jsonl")
    (day / "rollout-e.jsonl").symlink_to("nowhere")
    (tmp_path / "2026" / "02").symlink_to("02")  # a looping month folder
    (tmp_path / "2026" / "03").symlink_to("..")  # a link back up: bounded by the pattern's depth
    (day / "notes.txt").write_text("ignored")
    found, problems = glob_files(tmp_path, "*/*/*/rollout-*.jsonl")
    assert found == good
    assert sorted(problems) == sorted(
        [
            f"{day}/rollout-c.jsonl: not a regular file (named pipe)",
            f"{day}/rollout-d.jsonl: symlink loop",
            f"{day}/rollout-e.jsonl: no such file (or a dangling symlink)",
            f"{tmp_path}/2026/02: symlink loop",
        ]
    )
    scan = scan_dir(day, files="*.jsonl")
    assert [f.name for f in scan.files] == ["rollout-a.jsonl", "rollout-b.jsonl"]
    assert len(scan.skipped) == 3
    assert scan_dir(tmp_path / "missing", files="*").problems == ()
    assert scan_dir(tmp_path / "missing", files="*", missing_ok=False).problems


def test_an_unlistable_folder_is_named_as_such() -> None:
    code = (
        "import os, sys, tempfile\n"
        "from cargento.readers import scan_dir\n"
        "d = tempfile.mkdtemp(); sub = os.path.join(d, 'sub'); os.mkdir(sub, 0o700)\n"
        "os.chmod(d, 0o755)\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "print(scan_dir(sub, files='*').problems)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "permission denied" in done.stdout and "cannot list" in done.stdout
