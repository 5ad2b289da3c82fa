"""Whether a process id still names a live process: the standard library only, so the hook
forwarders (which check the dashboard's recorded pid on every hook) import nothing else."""

from __future__ import annotations

import os
import sys

__all__ = ["pid_alive"]


def pid_alive(pid: object) -> bool:
    """True while *pid* names a process that has not exited.

    A zombie (exited, not yet reaped by its parent) counts as exited: it holds no port and
    answers nothing. On Windows the process handle is opened for a query only.
    """
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)  # type: ignore[attr-defined]
        if handle:
            ctypes.windll.kernel32.CloseHandle(handle)  # type: ignore[attr-defined]
            return True
        return False
    if sys.platform.startswith("linux"):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read(1024)
        except FileNotFoundError:
            return False
        except OSError:
            stat = b""
        try:
            if stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] in (b"Z", b"X"):
                return False
        except ValueError:
            pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
