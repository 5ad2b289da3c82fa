"""The end-of-session git probe: is the working tree a session left dirty, and how many files
changed.

One bounded, read-only ``git status`` in the session's working directory:

* a timeout (the whole process group is killed when it passes, so a git that hangs, or a
  wrapper that spawned one, never holds the probe);
* ``GIT_OPTIONAL_LOCKS=0`` and ``--no-optional-locks``: status does not refresh the index, so
  nothing in the repository is written;
* no hooks (``core.hooksPath`` points at an empty place), no fsmonitor (which would run a
  hook program), no pager, no credential or terminal prompt, no submodule descent, and no
  command that talks to a remote (status never fetches);
* output read to a cap.

The answer is a :class:`GitReading`: ``dirty`` or ``clean`` with the count of changed files, or
``unmeasured`` with why (not a repository, no git, timed out, no working directory). An
unmeasured reading is never "clean".
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["GIT_TIMEOUT_S", "GitReading", "git_environment", "probe_git"]

GIT_TIMEOUT_S = 5.0
#: Bytes of ``git status`` output read at most (a count beyond it says "at least").
OUTPUT_CAP = 4 * 1024 * 1024


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class GitReading:
    """What one probe found: ``dirty``, ``clean`` or ``unmeasured``."""

    status: str
    #: Changed files (tracked changes and untracked files); ``None`` when unmeasured.
    changed: int | None = None
    #: Why a reading is unmeasured, or a note on a measured one.
    detail: str | None = None

    @property
    def dirty(self) -> bool | None:
        return None if self.status == "unmeasured" else self.status == "dirty"


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The environment git runs in: the caller's PATH and HOME, and every switch that keeps
    it from writing, prompting, paging or running a hook."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "USERPROFILE")
    env = {k: v for k, v in base.items() if k in keep}
    env.update(
        {
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "GCM_INTERACTIVE": "never",
            "GIT_NO_LAZY_FETCH": "1",
            "LC_ALL": "C",
        }
    )
    return env


def _command(cwd: Path) -> list[str]:
    return [
        "git",
        "--no-optional-locks",
        "--no-pager",
        "-c",
        f"core.hooksPath={os.devnull}",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.untrackedCache=false",
        "-c",
        "status.submoduleSummary=false",
        "-C",
        str(cwd),
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=normal",
        "--ignore-submodules=all",
        "--no-renames",
    ]


def changed_files(porcelain: bytes) -> int:
    """The entries of ``git status --porcelain=v1 -z --no-renames`` output."""
    return sum(1 for entry in porcelain.split(b"\0") if len(entry) > 3)


def probe_git(cwd: str | Path | None, *, env: Mapping[str, str], timeout_s: float = GIT_TIMEOUT_S) -> GitReading:
    """Run the probe in *cwd* (blocking; call it off the event loop)."""
    if not cwd:
        return GitReading(status="unmeasured", detail="the session published no working directory")
    where = Path(cwd)
    if not where.is_dir():
        return GitReading(status="unmeasured", detail="its working directory is not on this machine")
    try:
        proc = subprocess.Popen(
            _command(where),
            cwd=where,
            env=git_environment(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except FileNotFoundError:
        return GitReading(status="unmeasured", detail="no git on PATH")
    except OSError as exc:
        return GitReading(status="unmeasured", detail=f"git could not start ({exc.strerror or exc})")
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return GitReading(status="unmeasured", detail=f"git did not answer within {timeout_s:g} s")
    if proc.returncode != 0:
        text = err.decode("utf-8", "replace").strip().splitlines()
        first = text[0] if text else f"exit {proc.returncode}"
        if "not a git repository" in first:
            return GitReading(status="unmeasured", detail="not a git repository")
        return GitReading(status="unmeasured", detail=f"git status failed: {first[:160]}")
    count = changed_files(out[:OUTPUT_CAP])
    return GitReading(status="dirty" if count else "clean", changed=count)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    try:
        proc.communicate(timeout=2)
    except subprocess.TimeoutExpired:
        pass
