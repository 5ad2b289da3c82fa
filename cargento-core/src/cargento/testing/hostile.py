"""Running the real board over a hostile store: named pipes, link loops, unreadable files.

:func:`run_cli` runs ``cargento`` in a child process with a timeout, so a reader that blocks
fails the test instead of hanging the suite. With ``as_uid`` the child drops to that user
before it reads anything, which makes a file unreadable for real even when the suite runs as
root (root reads every file whatever its mode). :func:`shared_home` makes a home folder that
user can reach (pytest's own temporary folders are private to the user running it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import orjson

from cargento.sharedmethods import shared_methods

__all__ = [
    "NOBODY",
    "CliRun",
    "open_up",
    "run_cli",
    "served_and_unreadable",
    "shared_home",
    "unreadable_for_nobody",
    "unreadable_paths",
]

#: The conventional unprivileged user and group id.
NOBODY = 65534

_CHILD = r"""
import contextlib, io, json, os, sys
from cargento.cli import main
args, env, uid, warm = json.loads(sys.argv[1])
if uid is not None:
    # Every import is made while still privileged: the interpreter's own files need not be
    # readable by the unprivileged user, only the store under test must be unreadable.
    import cargento.diagnose, cargento.board, cargento.plugins
    os.environ["HOME"] = warm
    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
        main(["--diagnose", "--json"])
        main(["--json"])
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
os.environ.update(env)
sys.stdout.flush()
sys.exit(main(args))
"""

_RELOCATIONS = ("CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_", "PI_CODING", "CURSOR_", "GOOSE_", "FACTORY_", "XDG_")


@shared_methods
@attrs.frozen(repr=False, eq=False)
class CliRun:
    """What one ``cargento`` run printed and returned."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return orjson.loads(self.stdout)


def run_cli(
    args: Sequence[str],
    home: Path,
    *,
    env: Mapping[str, str] | None = None,
    as_uid: int | None = None,
    timeout: float = 90,
) -> CliRun:
    """Run ``cargento <args>`` with *home* as ``HOME`` in a child process.

    :raises subprocess.TimeoutExpired: the run did not finish within *timeout* seconds (a
        reader blocked); the child is killed.
    """
    base = {k: v for k, v in os.environ.items() if not k.startswith(_RELOCATIONS)}
    child_env = {"HOME": str(home), **(env or {})}
    warm = tempfile.mkdtemp(prefix="cargento-warm-")
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, orjson.dumps([list(args), child_env, as_uid, warm]).decode()],
            capture_output=True,
            text=True,
            env={**base, **child_env},
            timeout=timeout,
        )
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    return CliRun(done.returncode, done.stdout, done.stderr)


@contextmanager
def shared_home() -> Iterator[Path]:
    """A fresh home folder that every user can reach (removed afterwards)."""
    folder = Path(tempfile.mkdtemp(prefix="cargento-hostile-"))
    try:
        folder.chmod(0o755)
        home = folder / "home"
        home.mkdir(mode=0o755)
        yield home
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def open_up(root: Path) -> None:
    """Make every folder below *root* reachable and every file readable by every user."""
    for dirpath, _dirnames, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)


def unreadable_paths(report: Any, harness: str) -> dict[str, str]:
    """``path -> cause`` of the stores a ``--diagnose --json`` report names unreadable for
    *harness*."""
    for entry in report["harnesses"]:
        if entry["key"] == harness:
            return {u["path"]: u["cause"] for u in entry["unreadable"]}
    raise KeyError(harness)


def served_and_unreadable(
    home: Path, harness: str, *, env: Mapping[str, str] | None = None
) -> tuple[set[str], dict[str, str]]:
    """Run the real board over a hostile *home*: ``cargento --json --all`` must succeed and
    ``cargento --diagnose --json`` must exit 1. Returns the session ids served and the
    ``path -> cause`` of what diagnose names unreadable for *harness*."""
    board = run_cli(["--json", "--all"], home, env=env)
    assert board.returncode == 0, board.stderr
    report = run_cli(["--diagnose", "--json"], home, env=env)
    assert report.returncode == 1, report.stdout + report.stderr
    return {s["session_id"] for s in board.json()["sessions"]}, unreadable_paths(report.json(), harness)


def unreadable_for_nobody(
    home: Path, harness: str, hide: Sequence[Path], *, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Make everything under *home* readable to every user except *hide* (owner only), run
    ``cargento --diagnose --json`` as :data:`NOBODY` (it must exit 1) and return the
    ``path -> cause`` it names unreadable for *harness*. As root, this is how a permission
    error is made real."""
    open_up(home)
    for path in hide:
        path.chmod(0o600 if path.is_file() else 0o700)
    report = run_cli(["--diagnose", "--json"], home, env=env, as_uid=NOBODY)
    assert report.returncode == 1, report.stdout + report.stderr
    return unreadable_paths(report.json(), harness)
