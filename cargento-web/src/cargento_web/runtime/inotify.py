"""Watching the store roots with Linux inotify, on the serving loop: no thread, no polling.

watchfiles' Rust loop wakes every ``step`` milliseconds to see whether changes arrived (a
wake-up 50 times a second per watched group, each taking the GIL) and yields a change only
after a further quiet step, so a store write reaches the board 20 to 40 ms late. Here the
inotify descriptor is read by the event loop itself (``loop.add_reader``): nothing runs
while nothing changes, and a change is handed on the moment the kernel reports it. The
burst coalescing is the live board's own debounce.

A recursive root gets a watch on every directory below it, added as directories appear; a
shallow root watches that one directory. A queue overflow, or a watched root that vanishes,
reports ``None`` (unknown: rescan everything). Linux only: :func:`available` says whether it
can be used, and :class:`InotifyWatch` raises :class:`OSError` when a watch cannot be set
(the caller then falls back to watchfiles).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import errno
import os
import struct
import sys
from collections.abc import Callable, Iterable

__all__ = ["InotifyWatch", "available"]

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)

#: What a store change looks like: content written, a file made, moved or removed, its
#: times set. Opens and reads (IN_OPEN, IN_ACCESS) are not asked for: another program
#: listing a store directory must not wake the dashboard.
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
)
_HEADER = struct.Struct("iIII")
_READ_SIZE = 64 * 1024

_libc: ctypes.CDLL | None = None


def _load() -> ctypes.CDLL | None:
    global _libc
    if _libc is None and sys.platform.startswith("linux"):
        try:
            lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            lib.inotify_init1.argtypes = [ctypes.c_int]
            lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            lib.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
        except (OSError, AttributeError):
            return None
        _libc = lib
    return _libc


def available() -> bool:
    """True where inotify can be used (Linux with a C library that has it)."""
    return _load() is not None


class InotifyWatch:
    """Watch *deep* roots recursively and *shallow* directories on their own; call
    *on_change* with the changed paths (``None``: unknown, rescan everything).

    Start with :meth:`start` on the running loop; :meth:`close` removes every watch.
    """

    def __init__(
        self,
        deep: Iterable[str],
        shallow: Iterable[str],
        on_change: Callable[[list[str] | None], None],
    ) -> None:
        lib = _load()
        if lib is None:
            raise OSError(errno.ENOSYS, "inotify is not available on this platform")
        self._lib = lib
        self._on_change = on_change
        fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, f"inotify_init1: {os.strerror(err)}")
        self._fd = fd
        #: watch descriptor -> (directory, recursive)
        self._dirs: dict[int, tuple[str, bool]] = {}
        self._roots = frozenset(deep) | frozenset(shallow)
        self._loop: asyncio.AbstractEventLoop | None = None
        try:
            for root in deep:
                self._add_tree(root)
            for folder in shallow:
                self._add(folder, recursive=False)
        except OSError:
            self.close()
            raise

    @property
    def watches(self) -> int:
        """How many directories are watched."""
        return len(self._dirs)

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        loop.add_reader(self._fd, self._readable)

    def close(self) -> None:
        if self._fd < 0:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        os.close(self._fd)
        self._fd = -1
        self._dirs.clear()

    # -- watches ---------------------------------------------------------------------

    def _add(self, folder: str, *, recursive: bool) -> bool:
        wd = self._lib.inotify_add_watch(self._fd, os.fsencode(folder), MASK)
        if wd < 0:
            err = ctypes.get_errno()
            if err in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return False  # gone already, or not a directory we may read: nothing to watch
            raise OSError(err, f"inotify_add_watch {folder}: {os.strerror(err)}")
        self._dirs[wd] = (folder, recursive)
        return True

    def _add_tree(self, root: str) -> None:
        stack = [root]
        while stack:
            folder = stack.pop()
            if not self._add(folder, recursive=True):
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                stack.append(entry.path)
                        except OSError:
                            continue
            except OSError:
                continue

    # -- events ----------------------------------------------------------------------

    def _readable(self) -> None:
        changed: list[str] = []
        unknown = False
        while True:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                break
            except OSError:
                unknown = True
                break
            if not data:
                break
            unknown |= self._parse(data, changed)
        if unknown:
            self._on_change(None)
        elif changed:
            self._on_change(changed)

    def _parse(self, data: bytes, changed: list[str]) -> bool:
        """Append the changed paths in *data* to *changed*; True if the change is unknown."""
        unknown = False
        offset = 0
        while offset + _HEADER.size <= len(data):
            wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
            offset += _HEADER.size
            name = data[offset : offset + length].rstrip(b"\0")
            offset += length
            if mask & IN_Q_OVERFLOW:
                unknown = True
                continue
            watched = self._dirs.get(wd)
            if watched is None:
                continue
            folder, recursive = watched
            if mask & IN_IGNORED:
                # The kernel dropped the watch (its directory is gone).
                del self._dirs[wd]
                if folder in self._roots:
                    unknown = True
                continue
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                if folder in self._roots:
                    unknown = True
                changed.append(folder)
                continue
            path = os.path.join(folder, os.fsdecode(name)) if name else folder
            changed.append(path)
            if recursive and mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                # A directory appeared under a recursive root: watch it, and report what it
                # already holds (written before its watch was set).
                try:
                    self._add_tree(path)
                except OSError:
                    unknown = True
                changed.extend(_files_below(path))
        return unknown


def _files_below(root: str, limit: int = 10_000) -> list[str]:
    found: list[str] = []
    stack = [root]
    while stack and len(found) < limit:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        else:
                            found.append(entry.path)
                    except OSError:
                        continue
        except OSError:
            continue
    return found
