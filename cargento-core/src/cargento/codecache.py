"""attrs' generated methods compiled once and kept, as Python keeps a module's bytecode.

attrs writes each class's ``__init__`` as Python source and hands it to :func:`compile` when the
class is made (its ``__repr__``, ``__eq__`` and ``__hash__`` are shared already:
:mod:`cargento.sharedrepr`, :mod:`cargento.sharedmethods`). A ``cargento --json`` start compiles
129 such scripts and a server's 205, 15 to 21 ms of every start spent producing the same code
objects as the start before. :func:`install` gives attrs a :func:`compile` that looks a script
up in one file of the state directory first (``cache/attrs-<python>-O<level>.marshal``)
and compiles only what the file does not hold; :meth:`CodeCache.keep` writes what a run
compiled back, merged with what the file holds then.

The key is the whole script and the file name attrs gives it, and the file is made for one
interpreter (its tag and optimisation level in the name, its bytecode magic number in the
header), one installed attrs and one Cargento version (the header names them): a code object
taken from it is the one :func:`compile` would have returned.
A class is made the same either way; only the compiling is skipped. Only a script that reads
the same in every process can be taken: attrs' own ``__hash__`` embeds a hash of the class's
file name, which changes with each process's hash seed, so a class with it compiles at every
start (Cargento's value classes take :mod:`cargento.sharedmethods` instead; a test holds every
class of every installed Cargento package to one script across hash seeds). When a run uses a
file name whose script differs from one the file holds (the class was edited), the older
script is dropped on the next write.

The file is Cargento's own store and is kept as the others are: written atomically and readable
by its owner only, bounded (:data:`MAX_ENTRIES` scripts, :data:`MAX_BYTES`), re-read before it is
written. Code is loaded from it only when it is a regular file owned by this user that nobody
else can write (marshalled code runs when a class is made, as a ``.pyc`` does). A file that is
not ours to read (another owner, writable by others, not a regular file, too large, damaged (a
digest of the marshalled part is checked before it is unmarshalled), or not the format) is not
used and never written over: the run compiles everything, and ``--diagnose``
says why. A file made by another interpreter or attrs (the header names them) is replaced, and
``--diagnose`` says it was reset.

Installed by the console script only (:func:`cargento.cli.main` with no *argv*, and the
detached server's ``python -m cargento_web``), never by an import: a test importing Cargento
compiles as attrs always does. Only ``--json`` and the dashboard write it.
"""

from __future__ import annotations
import __future__

import builtins
import itertools
import marshal
import os
import stat
import sys
import threading
from collections.abc import Mapping
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from cargento.atomicfile import write_atomic

try:  # hashlib's own BLAKE2: importing hashlib loads OpenSSL's _hashlib too (1.6 ms of a start)
    from _blake2 import blake2b
except ImportError:  # an interpreter built without it
    from hashlib import blake2b

__all__ = [
    "MAX_BYTES",
    "MAX_ENTRIES",
    "CodeCache",
    "cache_path",
    "describe",
    "install",
    "install_from",
    "installed",
    "keep",
    "read_only",
    "uninstall",
]

#: Scripts kept at most: about five times what a server start compiles (the features loaded
#: on first use, two attrs releases' worth of edits). Those a run used are kept first.
MAX_ENTRIES = 2048
#: A file larger than this is not read (what :data:`MAX_ENTRIES` scripts marshal to is about a
#: tenth of it).
MAX_BYTES = 16 * 1024 * 1024
_PREFIX = b"cargento attrs code cache\n"

_Key = tuple[str, str]


def cache_path(directory: Path) -> Path:
    """The cache file under the state *directory* for this interpreter and optimisation level."""
    tag = sys.implementation.cache_tag or sys.implementation.name
    return directory / "cache" / f"attrs-{tag}-O{sys.flags.optimize}.marshal"


def _header(flags: int) -> bytes:
    """What made the file: the interpreter's bytecode magic number and optimisation level, the
    ``__future__`` flags of attrs' compile, attrs' module as installed (its size and time: the
    version would cost an ``importlib.metadata`` read, 23 ms) and Cargento's version."""
    import attr._make as made

    from cargento import __version__

    try:
        info = os.stat(made.__file__)
        attrs_made = f"{info.st_size}.{info.st_mtime_ns}"
    except (OSError, TypeError):
        attrs_made = "unknown"
    made_by = (
        f"python {MAGIC_NUMBER.hex()} O{sys.flags.optimize} flags {flags:x} attrs {attrs_made} cargento {__version__}\n"
    )
    return _PREFIX + made_by.encode()


class _NotOurs(Exception):
    """The file on disk is not one this process may use or replace (the reason is the text)."""


class _Stale(Exception):
    """The file is ours but made by another interpreter or attrs (replaced on the next write)."""


class CodeCache:
    """The code objects of attrs' generated methods, by ``(script, file name)``."""

    def __init__(self, path: Path, *, flags: int = 0) -> None:
        self.path = path
        #: The ``__future__`` flags attrs' own ``compile`` call inherits from its module.
        self.flags = flags
        self.codes: dict[_Key, CodeType] = {}
        #: The keys this run compiled or took, kept first when the file is bounded.
        self.used: dict[_Key, None] = {}
        #: Scripts compiled this run because the file did not hold them.
        self.compiled = 0
        #: Scripts taken from the file instead of compiled.
        self.taken = 0
        #: Scripts the file held when it was read.
        self.loaded = 0
        #: Why the file on disk is not used (and never written over), or ``None``.
        self.problem: str | None = None
        #: Why a file made by another interpreter or attrs was set aside, or ``None``.
        self.reset: str | None = None
        #: False for a run that keeps nothing (:func:`read_only`): read, never written.
        self.writable = True
        self._lock = threading.Lock()

    def load(self) -> None:
        """Read the file: its scripts are taken from now on. Absent is empty; a file that is not
        ours sets :attr:`problem`; a stale one sets :attr:`reset`."""
        try:
            found = _read(self.path, self.flags)
        except _NotOurs as exc:
            self.problem = str(exc)
            return
        except _Stale as exc:
            self.reset = str(exc)
            return
        self.codes.update(found)
        self.loaded = len(found)

    def compile(self, source: Any, filename: Any, mode: Any, *args: Any, **kwargs: Any) -> Any:
        """:func:`compile` as attrs calls it (``compile(script, filename, "exec")``), from the file
        when it holds the script; any other call is handed to the built-in unchanged."""
        if args or kwargs or mode != "exec" or type(source) is not str or type(filename) is not str:
            return builtins.compile(source, filename, mode, *args, **kwargs)
        key = (source, filename)
        code = self.codes.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode, self.flags, True)
            self.codes[key] = code
            self.compiled += 1
        else:
            self.taken += 1
        self.used[key] = None
        return code

    def keep(self) -> bool:
        """Write what this run compiled, merged with the file as it is now; True when written.
        Nothing is written when nothing was compiled, or over a file that is not ours."""
        with self._lock:
            if self.compiled == 0 or self.problem is not None:
                return False
            try:
                on_disk = _read(self.path, self.flags)
            except _NotOurs as exc:
                self.problem = str(exc)
                return False
            except _Stale:
                on_disk = {}
            # Copies: a worker thread may make a class (and compile) while this writes.
            counted = self.compiled
            used, codes = tuple(self.used), dict(self.codes)
            # This run's scripts first (those it used, then those it only compiled), then the
            # file's; each used key is in codes, as compile() put it there.
            every = {**on_disk, **codes}
            # A class makes one script in a process: another script under a file name this
            # run used is an earlier version of that class (its source was edited), never
            # asked for again, and is dropped rather than kept until the bound pushes it out.
            mine = {filename for _, filename in used}
            chosen = set(used)
            order = dict.fromkeys(
                key for key in itertools.chain(used, codes, on_disk) if key in chosen or key[1] not in mine
            )
            kept = {key: every[key] for key in itertools.islice(order, MAX_ENTRIES)}
            payload = marshal.dumps(kept)
            data = _header(self.flags) + _digest(payload) + b"\n" + payload
            if len(data) > MAX_BYTES:
                return False
            try:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                write_atomic(self.path, data, durable=False)  # a cache: a crash loses nothing read
            except OSError:
                return False
            self.compiled -= counted  # what was compiled meanwhile is kept by the next write
            return True


def _read(path: Path, flags: int) -> dict[_Key, CodeType]:
    """The scripts in the file at *path*: empty when absent; :class:`_NotOurs` when it may not
    be used, :class:`_Stale` when it was made by another interpreter or attrs."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise _NotOurs(f"cannot be opened ({exc.strerror or exc})") from None
    try:
        try:
            info = os.fstat(fd)
        except OSError as exc:
            raise _NotOurs(f"cannot be read ({exc.strerror or exc})") from None
        if not stat.S_ISREG(info.st_mode):
            raise _NotOurs("not a regular file")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise _NotOurs("owned by another user")
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise _NotOurs("writable by other users")
        if info.st_size > MAX_BYTES:
            raise _NotOurs(f"larger than {MAX_BYTES} bytes")
        try:
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise _NotOurs(f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    header = _header(flags)
    if not data.startswith(_PREFIX):
        raise _NotOurs("not a Cargento code cache")
    if not data.startswith(header):
        end = data.find(b"\n", len(_PREFIX))
        made_by = data[len(_PREFIX) : end].decode("ascii", "replace") if end > 0 else ""
        if not made_by.startswith("python "):
            raise _NotOurs("not a Cargento code cache (its header is cut short)")
        raise _Stale(f"made by {made_by}")
    # The payload's digest first: marshal is no parser of damaged data (37 random bytes that
    # claim a huge tuple kept marshal.loads busy for 4.2 s), so only the bytes this module
    # wrote reach it.
    end = data.find(b"\n", len(header))
    payload = data[end + 1 :]
    if end < 0 or data[len(header) : end] != _digest(payload):
        raise _NotOurs("damaged (its digest does not match)")
    try:
        found = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        raise _NotOurs("not a Cargento code cache (it cannot be unmarshalled)") from None
    if not isinstance(found, dict) or not all(_valid_entry(k, v) for k, v in found.items()):
        raise _NotOurs("not a Cargento code cache (an entry is not a script's code)")
    return found


def _digest(payload: bytes) -> bytes:
    """The hex BLAKE2b digest (16 bytes) of *payload*, as the header's last line holds it."""
    return blake2b(payload, digest_size=16).hexdigest().encode("ascii")


def _valid_entry(key: object, code: object) -> bool:
    return (
        type(key) is tuple
        and len(key) == 2
        and type(key[0]) is str
        and type(key[1]) is str
        and type(code) is CodeType
        and code.co_filename == key[1]
    )


def _future_flags(module: ModuleType) -> int:
    """The ``__future__`` compiler flags code compiled from *module* inherits."""
    flags = 0
    for value in vars(module).values():
        if isinstance(value, __future__._Feature):
            flags |= value.compiler_flag
    return flags


_installed: CodeCache | None = None


def install(directory: Path) -> CodeCache | None:
    """Give attrs the caching :func:`compile`, its file under the state *directory*; the cache,
    or ``None`` when attrs makes its methods some other way (then nothing is changed)."""
    global _installed
    if _installed is not None:
        return _installed
    import attr._make as made

    if not callable(made.__dict__.get("_compile_and_eval")) or "compile" in made.__dict__:
        return None
    cache = CodeCache(cache_path(directory), flags=_future_flags(made))
    cache.load()
    made.compile = cache.compile  # type: ignore[attr-defined]
    _installed = cache
    return cache


def install_from(env: Mapping[str, str]) -> CodeCache | None:
    """:func:`install` with the state directory *env* names (``CARGENTO_HOME``, else
    ``~/.cargento``): what the console scripts call before anything heavy is imported."""
    from cargento.statepath import state_dir_path

    return install(Path(state_dir_path(env)))


def keep() -> bool:
    """Write what the installed cache compiled this run (:meth:`CodeCache.keep`); False when
    none is installed, it may not write, or nothing new was compiled."""
    cache = _installed
    return cache is not None and cache.writable and cache.keep()


def read_only() -> None:
    """This run keeps nothing it compiled (``--demo``, ``--diagnose``, the one-shot commands):
    the installed cache is read, never written."""
    if _installed is not None:
        _installed.writable = False


def installed() -> CodeCache | None:
    """The cache :func:`install` put in place, or ``None``."""
    return _installed


def uninstall() -> None:
    """Give attrs the built-in :func:`compile` back."""
    global _installed
    import attr._make as made

    if _installed is not None and made.__dict__.get("compile") == _installed.compile:
        del made.compile  # type: ignore[attr-defined]
    _installed = None


def describe(directory: Path) -> Mapping[str, str | None]:
    """What ``--diagnose`` says of the file under *directory*: its path, a status (``absent``,
    ``read``, ``reset`` or ``unreadable``) and a detail."""
    import attr._make as made

    path = cache_path(directory)
    try:
        found = _read(path, _future_flags(made))
    except _NotOurs as exc:
        return {"path": str(path), "status": "unreadable", "detail": f"{exc}: not used, never written over"}
    except _Stale as exc:
        return {"path": str(path), "status": "reset", "detail": f"{exc}: replaced on the next start"}
    if not found and not path.exists():
        return {"path": str(path), "status": "absent", "detail": None}
    return {"path": str(path), "status": "read", "detail": f"{len(found)} compiled scripts"}
