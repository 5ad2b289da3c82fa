"""Writing a file in one step, reading a bounded JSON object, and the platform and home."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cargento.atomicfile import write_atomic
from cargento.platforms import current_platform, home_from
from cargento.readers import load_json_object, read_json_object

# -- write_atomic ----------------------------------------------------------------------------


def test_write_atomic_creates_the_folder_and_replaces_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "state.json"
    write_atomic(target, b'{"a": 1}\n')
    assert target.read_bytes() == b'{"a": 1}\n'
    write_atomic(target, "é\n")
    assert target.read_bytes() == "é\n".encode()
    assert [p.name for p in target.parent.iterdir()] == ["state.json"], "no temporary file is left"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_write_atomic_syncs_before_the_rename_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    order: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        order.append("fsync")
        real_fsync(fd)

    def replace(src: str, dst: str | Path) -> None:
        order.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "f", b"x")
    assert order == ["fsync", "replace"]
    order.clear()
    write_atomic(tmp_path / "f", b"y", durable=False)
    assert order == ["replace"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "settings.json"
    target.write_text("old")

    def refuse(*_a: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


# -- load_json_object ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "missing"),
        (b"", "not valid JSON"),
        (b"{half", "not valid JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'"text"', "not a JSON object"),
        (b'{"k": "' + b"x" * 100 + b'"}', "larger than 64 bytes"),
    ],
)
def test_load_json_object_says_why_there_is_none(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "meta.json"
    if content is not None:
        path.write_bytes(content)
    assert load_json_object(path, max_bytes=64).problem == problem
    assert load_json_object(path, max_bytes=64).value is None
    assert read_json_object(path, max_bytes=64) is None


def test_load_json_object_reads_an_object_up_to_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"name": "team", "n": [1]}')
    size = path.stat().st_size
    assert read_json_object(path, max_bytes=size) == {"name": "team", "n": [1]}
    assert load_json_object(str(path), max_bytes=size).problem is None
    assert read_json_object(path, max_bytes=size - 1) is None


def test_load_json_object_reports_an_unreadable_file(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    found = load_json_object(folder, max_bytes=64)
    assert found.value is None and found.problem is not None and found.problem.startswith("unreadable (")


# -- platforms -------------------------------------------------------------------------------


def test_current_platform_names_three_platforms() -> None:
    assert current_platform("win32") == "win32"
    assert current_platform("darwin") == "darwin"
    assert current_platform("linux") == "linux"
    assert current_platform("freebsd14") == "linux"
    assert current_platform() in {"linux", "darwin", "win32"}


def test_home_from_prefers_home_then_userprofile(tmp_path: Path) -> None:
    assert home_from({"HOME": str(tmp_path / "h"), "USERPROFILE": "C:/u"}) == tmp_path / "h"
    assert home_from({"HOME": "", "USERPROFILE": str(tmp_path / "u")}) == tmp_path / "u"
    assert home_from({}) == Path.home()
