"""Opening only regular files, and naming why a path could not be read.

A named pipe, socket or device node with a transcript's name blocks the plain ``open()`` of a
reader until some other process writes to it, which freezes the whole board. Every reader in
:mod:`cargento.readers` therefore opens through :func:`open_regular`: the open itself never
blocks (``O_NONBLOCK``), and anything that is not a regular file is refused with
:class:`NotRegularFile` before a byte is read. Plugins that read a file of their own (a
config, a sidecar) use :func:`open_regular` or :func:`read_regular` the same way.

:func:`why` turns an :class:`OSError` into the short cause ``--diagnose`` shows beside a path
(``permission denied``, ``symlink loop``, ``not a regular file (named pipe)``...).
"""

from __future__ import annotations

import errno
import os
import stat

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

__all__ = [
    "UNREADABLE_CAUSES",
    "NotRegularFile",
    "file_kind",
    "open_regular",
    "read_regular",
    "split_unreadable",
    "unreadable",
    "why",
]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


class NotRegularFile(OSError):
    """The path names a directory, named pipe, socket or device, not a regular file.

    An :class:`OSError` (``errno`` ``EISDIR`` for a directory, ``EINVAL`` otherwise), so every
    reader that already treats an unreadable file as skipped treats this one the same way.
    """

    def __init__(self, path: str, kind: str) -> None:
        code = errno.EISDIR if kind == "directory" else errno.EINVAL
        super().__init__(code, f"not a regular file ({kind})", path)
        self.kind = kind


def file_kind(mode: int) -> str:
    """What an ``st_mode`` is, in words: ``regular file``, ``named pipe``, ``directory``..."""
    if stat.S_ISREG(mode):
        return "regular file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open *path* for binary reading, only when it is a regular file; the open never blocks.

    Symbolic links are followed (a harness may link its store elsewhere); a link loop raises
    :class:`OSError` with ``errno.ELOOP``.

    :raises NotRegularFile: the path is a directory, named pipe, socket or device.
    :raises OSError: the path cannot be opened (missing, permission denied, link loop...).
    """
    name = os.fspath(path)
    fd = os.open(name, os.O_RDONLY | _NONBLOCK | _CLOEXEC | _BINARY)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(name, file_kind(mode))
        if _NONBLOCK:
            os.set_blocking(fd, True)
        return open(fd, "rb", closefd=True)
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the regular file *path* (at most *limit* of them), via :func:`open_regular`."""
    with open_regular(path) as fh:
        return fh.read() if limit is None else fh.read(limit)


_CAUSES = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "symlink loop",
    errno.ENOENT: "no such file (or a dangling symlink)",
    errno.ENOTDIR: "a path component is not a directory",
    errno.EISDIR: "is a directory",
    errno.ENAMETOOLONG: "name too long",
    errno.EIO: "input/output error",
    errno.ENXIO: "not a regular file (socket or device)",  # open() of a Unix socket
}


def why(exc: BaseException) -> str:
    """The cause of a read failure in a few words, for a problem line or a fault."""
    if isinstance(exc, NotRegularFile):
        return str(exc.strerror)
    if isinstance(exc, OSError):
        cause = _CAUSES.get(exc.errno) if exc.errno is not None else None
        return cause or str(exc.strerror or exc)
    return str(exc)


def unreadable(path: str | os.PathLike[str], exc: BaseException) -> str:
    """One ``Discovery.problems`` line for a path that could not be read: ``<path>: <cause>``."""
    return f"{os.fspath(path)}: {why(exc)}"


#: The causes :func:`why` and the store checks give for a path that could not be read at all
#: (as opposed to one read and found not to hold a session).
UNREADABLE_CAUSES = frozenset(
    [*_CAUSES.values(), "dangling symlink", "not an SQLite database", "corrupt database", "not a folder"]
)
_PREFIXES = ("cannot list ", "cannot read ", "skipped ")


def split_unreadable(line: str) -> tuple[str, str] | None:
    """``(path, cause)`` when a problem or fault line says a path could not be read
    (``<path>: <cause>``, ``cannot list <path>: <cause>``, ``skipped <path>: <cause>``,
    ``cannot read <path>: <cause>``, with a cause of :data:`UNREADABLE_CAUSES` or ``not a
    regular file (...)``); ``None`` for any other line."""
    text = line
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    head, sep, cause = text.rpartition(": ")
    if not sep or not (cause in UNREADABLE_CAUSES or cause.startswith("not a regular file (")):
        return None
    marker = "unreadable database "
    if marker in head:
        head = head.split(marker, 1)[1]
    return head, cause
