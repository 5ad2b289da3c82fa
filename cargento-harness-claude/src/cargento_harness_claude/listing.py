"""The transcript listing: ``projects/<dir>/<session>.jsonl`` and the session folders beside them.

The listing is made once by walking every project folder, then kept and corrected one name
(or one project folder) at a time from the paths a file watcher reported, so the cost of a
refresh follows what changed rather than the size of the store. A full pass without a watcher
report must still ``stat`` every transcript (an append does not change its folder), but it keeps
each entry whose file is unchanged and reports only the session ids that changed, so what is
derived from the listing need not be derived again for the rest. A session id may have a
transcript in more than one project folder; the newest one wins (ties: the first folder by
name).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime

import attrs
from cargento.readers import NotRegularFile, entry_is_dir, file_kind, why
from cargento.sharedrepr import shared_repr

__all__ = ["Entry", "Listing", "Project", "is_transcript"]

_SUFFIX = ".jsonl"
#: Whether ``os.scandir`` lists a folder from its descriptor here (POSIX, not Windows).
_FD_LISTING = os.scandir in os.supports_fd
_fromtimestamp = datetime.fromtimestamp
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def is_transcript(name: str) -> bool:
    """True when a file name in a project folder is a session transcript (not a sidechain)."""
    return name.endswith(_SUFFIX) and not name.startswith("agent-") and "-agent-" not in name


def _why(exc: OSError) -> str:
    return why(exc)


def _why_path(path: str) -> str:
    try:
        os.stat(path)
    except OSError as exc:
        return why(exc)
    return "not a folder"


@contextlib.contextmanager
def _listed(path: str) -> Iterator[Iterator[os.DirEntry[str]]]:
    """``os.scandir`` of *path*, through a descriptor of the folder where the platform lists
    one: each ``DirEntry.stat`` is then an ``fstatat`` of the bare name (measured on a folder
    of 5,000 transcripts: about a quarter less time than a ``stat`` of each full path). The
    entries' ``path`` is then the bare name: read ``name``."""
    if not _FD_LISTING:
        with os.scandir(path) as entries:
            yield entries
        return
    fd = os.open(path, _DIR_FLAGS)
    try:
        with os.scandir(fd) as entries:
            yield entries
    finally:
        os.close(fd)


class Entry:
    """One session transcript as last ``stat``-ed.

    A store holds thousands of old transcripts, each listed for as long as the server runs, so
    an entry keeps only what it cannot share or work out again: its session id, the four
    figures that tell the file changed (named as ``os.stat_result`` names them, so an entry
    answers for its ``stat`` where only those are read) and its project folder's name and path
    (two strings every entry of the folder shares). Its path, time and ``size:mtime_ns`` stamp
    are made when asked (only the sessions inside the display window ask): kept, they were
    about 270 bytes an entry.
    """

    __slots__ = ("folder", "project", "session_id", "st_dev", "st_ino", "st_mtime_ns", "st_size")

    def __init__(self, folder: str, project: str, session_id: str, st: os.stat_result, st_dev: int) -> None:
        """*folder* is the project folder's path, *project* its name; *st_dev* is ``st.st_dev``,
        or an equal integer another entry holds already (the files of a folder share a device,
        and sharing the one integer saves 32 bytes an entry)."""
        self.folder = folder
        self.project = project
        self.session_id = session_id
        self.st_dev = st_dev
        self.st_ino = st.st_ino
        self.st_size = st.st_size
        self.st_mtime_ns = st.st_mtime_ns

    @property
    def path(self) -> str:
        """The transcript's path: ``<project folder>/<session id>.jsonl``."""
        return self.folder + os.sep + self.session_id + _SUFFIX

    @property
    def mtime(self) -> datetime:
        """The modification time, as ``datetime.fromtimestamp(st.st_mtime, UTC)`` made it."""
        return _fromtimestamp(_seconds(self.st_mtime_ns), UTC)

    @property
    def stamp(self) -> str:
        """``size:mtime_ns``."""
        return f"{self.st_size}:{self.st_mtime_ns}"

    def same_file(self, st: os.stat_result) -> bool:
        """True when *st* is the ``stat`` this entry was made from."""
        return (
            self.st_mtime_ns == st.st_mtime_ns
            and self.st_size == st.st_size
            and self.st_ino == st.st_ino
            and self.st_dev == st.st_dev
        )


def _seconds(mtime_ns: int) -> float:
    """``st_mtime`` from ``st_mtime_ns``: the float ``os.stat`` makes, to the last bit (whole
    seconds plus the nanoseconds times 1e-9, as CPython's ``fill_time`` adds them), so the
    time an entry answers is the one a kept ``st_mtime`` gave."""
    seconds, nanoseconds = divmod(mtime_ns, 1_000_000_000)
    return seconds + nanoseconds * 1e-9


@shared_repr
@attrs.define(repr=False, eq=False)
class Project:
    """One project folder."""

    name: str
    path: str
    #: Transcripts by session id.
    transcripts: dict[str, Entry] = attrs.Factory(dict)
    #: Names of the sub-folders (session folders hold subagents and tool results).
    folders: set[str] = attrs.Factory(set)
    #: Problems by the path they are about.
    problems: dict[str, str] = attrs.Factory(dict)
    listed: bool = True


class Listing:
    """Every project folder's transcripts and session folders."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.projects: dict[str, Project] = {}
        #: Session id -> its transcript, or (held in more than one project folder, which is
        #: rare) project name -> transcript: a dict for every old session would be ~200 bytes.
        self.by_sid: dict[str, Entry | dict[str, Entry]] = {}
        self.problem: str | None = None
        #: Entries of the root that are not project folders but look like one (a link loop).
        self.problem_entries: dict[str, str] = {}
        #: Projects with problems, so collecting them does not visit every project.
        self.troubled: set[str] = set()

    # -- reading the folders -------------------------------------------------------------

    def scan(self) -> set[str]:
        """List every project folder again; returns the session ids whose transcript or session
        folder appeared, vanished or changed since the last scan (on the first, every one)."""
        self.problem = None
        self.problem_entries = {}
        try:
            with os.scandir(self.root) as it:
                entries = list(it)
        except OSError as exc:
            if os.path.exists(self.root):
                self.problem = f"cannot list {self.root}: {_why(exc)}"
            touched: set[str] = set()
            for name in list(self.projects):
                touched |= self._drop(name)
            return touched
        touched = set()
        seen: set[str] = set()
        for entry in entries:
            if entry_is_dir(entry):
                seen.add(entry.name)
                touched |= self._list(entry.name, self.projects.get(entry.name))
            elif not entry.name.startswith(".") and not os.path.exists(entry.path):
                # A link loop or a dangling link where a project folder would be: named, and
                # every other project folder is still listed.
                self.problem_entries[entry.path] = f"skipped {entry.path}: {_why_path(entry.path)}"
        for name in [n for n in self.projects if n not in seen]:
            touched |= self._drop(name)
        return touched

    def rescan_project(self, name: str) -> set[str]:
        """List one project folder again (created, removed, changed); returns the ids touched."""
        touched = self._drop(name)
        if os.path.isdir(os.path.join(self.root, name)):
            touched |= self._list(name)
        return touched

    def update(self, project: str, name: str) -> set[str]:
        """Look again at one name in a project folder (and at its transcript/folder twin)."""
        proj = self.projects.get(project)
        if proj is None or not proj.listed or not os.path.isdir(proj.path):
            return self.rescan_project(project)
        twin = name[: -len(_SUFFIX)] if name.endswith(_SUFFIX) else name + _SUFFIX
        touched: set[str] = set()
        for each in (name, twin):
            if is_transcript(each):
                found = self._examine(proj, each)
                if found is None:
                    return self.rescan_project(project)
                touched |= found
            is_dir = os.path.isdir(os.path.join(proj.path, each))
            if is_dir != (each in proj.folders):
                (proj.folders.add if is_dir else proj.folders.discard)(each)
                touched.add(each)
        return touched

    def _list(self, name: str, old: Project | None = None) -> set[str]:
        """List one project folder; returns the ids that differ from *old* (its last listing),
        whose entries for unchanged files are kept."""
        # The folder's path string is the one its kept entries share already.
        path = old.path if old is not None else os.path.join(self.root, name)
        proj = Project(name=name, path=path)
        known = old.transcripts if old is not None and old.listed else {}
        device = -1
        touched: set[str] = set()
        fresh_entries: list[Entry] = []
        folders, transcripts, problems = proj.folders, proj.transcripts, proj.problems
        prefix = path + os.sep
        try:
            # One entry at a time: a listed ``DirEntry`` keeps its name, its path and the
            # ``stat`` it was asked for, so listing a folder of 5,000 old transcripts first
            # held 4.7 MB at once. Nothing is changed until the whole folder was read. This
            # loop runs once per transcript on every full pass, so it is written out: the
            # folder is listed through its descriptor where the platform can (each ``stat``
            # then resolves only the name, not the whole path again), and a name that is not
            # a transcript is never ``stat``-ed.
            with _listed(path) as entries:
                for entry in entries:
                    entry_name = entry.name
                    try:
                        if entry.is_dir():
                            folders.add(entry_name)
                    except OSError:
                        pass  # a link loop or an entry that cannot be looked into: no folder
                    if not entry_name.endswith(_SUFFIX) or entry_name.startswith("agent-") or "-agent-" in entry_name:
                        continue
                    try:
                        st = entry.stat()
                    except OSError as exc:
                        problems[prefix + entry_name] = f"skipped {prefix + entry_name}: {_why(exc)}"
                        continue
                    if not stat.S_ISREG(st.st_mode):
                        if not stat.S_ISDIR(st.st_mode):
                            problems[prefix + entry_name] = (
                                f"skipped {prefix + entry_name}: not a regular file ({file_kind(st.st_mode)})"
                            )
                        continue
                    sid = entry_name[: -len(_SUFFIX)]
                    was = known.get(sid)
                    # same_file, inline.
                    if (
                        was is not None
                        and was.st_mtime_ns == st.st_mtime_ns
                        and was.st_size == st.st_size
                        and was.st_ino == st.st_ino
                        and was.st_dev == st.st_dev
                    ):
                        transcripts[sid] = was
                    else:
                        if st.st_dev != device:
                            device = st.st_dev
                        fresh = Entry(path, name, sid, st, device)
                        transcripts[sid] = fresh
                        fresh_entries.append(fresh)
                        touched.add(sid)
        except OSError as exc:
            proj = Project(name=name, path=path)
            touched = self._drop(name)
            self.projects[name] = proj
            proj.listed = False
            proj.problems[path] = f"cannot list {path}: {_why(exc)}"
            self.troubled.add(name)
            return touched
        by_sid = self.by_sid
        for fresh in fresh_entries:
            if fresh.session_id not in by_sid:  # _add, inline for the common case
                by_sid[fresh.session_id] = fresh
            else:
                self._add(fresh)
        for sid in known:
            if sid not in transcripts:
                touched.add(sid)
                self._discard(sid, name)
        touched |= (folders ^ old.folders) if old is not None and old.listed else folders
        self.projects[name] = proj
        (self.troubled.add if problems else self.troubled.discard)(name)
        return touched

    def _examine(self, proj: Project, name: str) -> set[str] | None:
        """Re-``stat`` one transcript; ``None`` when its folder cannot be looked into."""
        path = os.path.join(proj.path, name)
        sid = name[: -len(_SUFFIX)]
        if proj.problems.pop(path, None) is not None and not proj.problems:
            self.troubled.discard(proj.name)
        old = proj.transcripts.get(sid)
        try:
            os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            if old is None:
                return set()
            self._remove(proj, sid)
            return {sid}
        except OSError:
            return None
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
                raise NotRegularFile(path, file_kind(st.st_mode))
        except OSError as exc:
            proj.problems[path] = f"skipped {path}: {_why(exc)}"
            self.troubled.add(proj.name)
            if old is not None:
                self._remove(proj, sid)
            return {sid}
        if stat.S_ISDIR(st.st_mode):
            if old is not None:
                self._remove(proj, sid)
                return {sid}
            return set()
        if old is not None and old.same_file(st):
            return set()
        self._put(proj, Entry(proj.path, proj.name, sid, st, st.st_dev))
        return {sid}

    def _put(self, proj: Project, entry: Entry) -> None:
        proj.transcripts[entry.session_id] = entry
        self._add(entry)

    def _remove(self, proj: Project, sid: str) -> None:
        proj.transcripts.pop(sid, None)
        self._discard(sid, proj.name)

    def _add(self, entry: Entry) -> None:
        """Hold *entry* as its session's transcript in its project folder."""
        sid = entry.session_id
        held = self.by_sid.get(sid)
        if held is None or (isinstance(held, Entry) and held.project == entry.project):
            self.by_sid[sid] = entry
        elif isinstance(held, Entry):
            self.by_sid[sid] = {held.project: held, entry.project: entry}
        else:
            held[entry.project] = entry

    def _discard(self, sid: str, project: str) -> None:
        """Forget the transcript of *sid* in *project* (if one is held)."""
        held = self.by_sid.get(sid)
        if held is None:
            return
        if isinstance(held, Entry):
            if held.project == project:
                del self.by_sid[sid]
            return
        held.pop(project, None)
        if len(held) == 1:
            (self.by_sid[sid],) = held.values()
        elif not held:
            del self.by_sid[sid]

    def _drop(self, name: str) -> set[str]:
        proj = self.projects.pop(name, None)
        self.troubled.discard(name)
        if proj is None:
            return set()
        touched = set(proj.transcripts) | proj.folders
        for sid in list(proj.transcripts):
            self._remove(proj, sid)
        return touched

    # -- answers -------------------------------------------------------------------------

    def entries(self, sid: str) -> dict[str, Entry]:
        """The transcripts of *sid* by project folder name."""
        held = self.by_sid.get(sid)
        if held is None:
            return {}
        return {held.project: held} if isinstance(held, Entry) else dict(held)

    def winner(self, sid: str) -> Entry | None:
        """The transcript of *sid*: the newest, ties going to the first project folder by name."""
        found = self.by_sid.get(sid)
        if found is None or isinstance(found, Entry):
            return found
        best: Entry | None = None
        for name in sorted(found):
            entry = found[name]
            if best is None or entry.mtime > best.mtime:
                best = entry
        return best

    def has_folder(self, entry: Entry) -> bool:
        """True when the transcript's session folder exists beside it."""
        proj = self.projects.get(entry.project)
        return proj is not None and entry.session_id in proj.folders

    def problems(self) -> list[str]:
        """Every problem met, in path order."""
        found = dict(p for name in self.troubled for p in self.projects[name].problems.items())
        found.update(self.problem_entries)
        out = [found[k] for k in sorted(found)]
        return [self.problem, *out] if self.problem else out
