"""Listing store folders entry by entry, so one bad entry never hides its neighbours.

``os.scandir`` plus ``DirEntry.is_dir()`` raises on a symlink loop, and ``Path.glob`` drops an
unlistable folder or a looping link without a word. :func:`scan_dir` and :func:`glob_files`
look at each entry on its own: a link loop, a dangling link, an entry that cannot be
``stat``-ed, a named pipe or socket with a wanted name, or a folder that cannot be listed is
skipped and named in the returned problems (one ``<path>: <cause>`` line each, for
``Discovery.problems``), and every other entry is still returned.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable
from pathlib import Path

import attrs

from cargento.readers.regular import file_kind, why
from cargento.sharedmethods import shared_methods

__all__ = ["Found", "Scan", "entry_is_dir", "glob_files", "scan_dir"]


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Found:
    """One regular file or folder, with the ``stat`` of what it names (links followed)."""

    path: str
    name: str
    st: os.stat_result


@shared_methods
@attrs.frozen(repr=False, eq=False)
class Scan:
    """What :func:`scan_dir` found in one folder."""

    files: tuple[Found, ...] = ()
    dirs: tuple[Found, ...] = ()
    problems: tuple[str, ...] = ()
    #: The paths of the wanted entries that were skipped (each named in :attr:`problems`).
    skipped: tuple[str, ...] = ()
    #: False when the folder itself could not be listed (or is missing).
    listed: bool = True


def entry_is_dir(entry: os.DirEntry[str]) -> bool:
    """``entry.is_dir()`` (links followed) that is ``False`` instead of raising for a link loop
    or an entry that cannot be ``stat``-ed."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _wanted(pattern: Callable[[str], bool] | str | None, name: str) -> bool:
    if pattern is None:
        return False
    if isinstance(pattern, str):
        return fnmatch.fnmatchcase(name, pattern)
    return pattern(name)


def scan_dir(
    folder: str | os.PathLike[str],
    *,
    files: Callable[[str], bool] | str | None = None,
    dirs: Callable[[str], bool] | str | None = None,
    missing_ok: bool = True,
) -> Scan:
    """The regular files whose names match *files* and the folders whose names match *dirs*
    (a glob pattern or a predicate on the name; ``None`` wants none) in *folder*.

    An entry with a wanted name that cannot be ``stat``-ed, or that is neither a regular file
    nor a folder, is skipped and named in :attr:`Scan.problems`; a wanted file name on a folder
    (or a wanted folder name on a file) is simply not that kind of entry. A missing *folder*
    gives an empty scan (named as a problem unless *missing_ok*).
    """
    base = os.fspath(folder)
    try:
        with os.scandir(base) as it:
            entries = list(it)
    except FileNotFoundError as exc:
        lost = () if missing_ok else (f"cannot list {base}: {why(exc)}",)
        return Scan(problems=lost, listed=False)
    except OSError as exc:
        return Scan(problems=(f"cannot list {base}: {why(exc)}",), listed=False)
    found_files: list[Found] = []
    found_dirs: list[Found] = []
    problems: list[str] = []
    skipped: list[str] = []
    for entry in sorted(entries, key=lambda e: e.name):
        want_file = _wanted(files, entry.name)
        want_dir = _wanted(dirs, entry.name)
        if not (want_file or want_dir):
            continue
        try:
            st = entry.stat()
        except OSError as exc:
            problems.append(f"{entry.path}: {why(exc)}")
            skipped.append(entry.path)
            continue
        if stat.S_ISREG(st.st_mode):
            if want_file:
                found_files.append(Found(entry.path, entry.name, st))
        elif stat.S_ISDIR(st.st_mode):
            if want_dir:
                found_dirs.append(Found(entry.path, entry.name, st))
        else:
            problems.append(f"{entry.path}: not a regular file ({file_kind(st.st_mode)})")
            skipped.append(entry.path)
    return Scan(files=tuple(found_files), dirs=tuple(found_dirs), problems=tuple(problems), skipped=tuple(skipped))


def glob_files(root: str | os.PathLike[str], pattern: str) -> tuple[list[Path], list[str]]:
    """The regular files below *root* matching *pattern* (``/``-separated glob segments, no
    ``**``), sorted, and the problems met on the way (see :func:`scan_dir`).

    Every segment but the last matches folders, the last matches files; the depth is the
    pattern's, so a link back to an ancestor folder cannot make the walk endless.
    """
    parts = [p for p in pattern.split("/") if p]
    if not parts or any("**" in p for p in parts):
        raise ValueError(f"unsupported pattern {pattern!r}")
    problems: list[str] = []
    level = [os.fspath(root)]
    for part in parts[:-1]:
        following: list[str] = []
        for folder in level:
            scan = scan_dir(folder, dirs=part)
            problems.extend(scan.problems)
            following.extend(d.path for d in scan.dirs)
        level = following
    out: list[Path] = []
    for folder in level:
        scan = scan_dir(folder, files=parts[-1])
        problems.extend(scan.problems)
        out.extend(Path(f.path) for f in scan.files)
    return sorted(out), problems
