"""The cockpit's read-only terminal prototype: one exact session's tmux pane, shown, never typed into.

It exists only when both ``--interaction-origin-session <harness:sid>`` and
``--interaction-origin-registration-file <private-file>`` are given. At start the server writes
a fresh registration capability into that file, readable by its owner only (0600). Registration
is a request made from *inside* the session's tmux pane (``cargento-web``'s helper, or any
client, sends ``$TMUX`` and ``$TMUX_PANE`` with the capability): the server checks the
capability in constant time, that the named session is the one the flag names, that tmux knows
that pane on that socket, and that the pane's current directory is the session's working
directory. Output is ``tmux capture-pane`` of the registered pane, bounded to
:data:`MAX_LINES` lines and :data:`MAX_BYTES` bytes and redacted. No route accepts input: there
is nothing here that could send a key to the pane.
"""

from __future__ import annotations

import hmac
import os
import secrets
import subprocess
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
from cargento.board import Board
from cargento.redact import redact
from cargento.sharedmethods import shared_methods

__all__ = ["MAX_BYTES", "MAX_LINES", "Registration", "Terminal", "write_capability"]

MAX_LINES = 200
MAX_BYTES = 64 * 1024
_TIMEOUT_S = 3.0


def write_capability(path: Path) -> str:
    """A fresh capability, written to *path* readable by its owner only; returns it."""
    capability = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, (capability + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return capability


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Registration:
    socket: str
    pane: str
    at: datetime
    cwd: str


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _tmux(socket: str, *args: str) -> str:
    done = subprocess.run(
        ["tmux", "-S", socket, *args], capture_output=True, timeout=_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise Refused(422, f"tmux did not answer for that pane ({done.stderr.decode(errors='replace').strip()[:200]})")
    return done.stdout.decode("utf-8", "replace")


class Terminal:
    """The one session the prototype may show, and the pane registered for it."""

    def __init__(self, session: str, registration_file: Path, *, latest_board: Callable[[], Board | None]) -> None:
        self.session = session
        self.registration_file = registration_file
        self.capability = write_capability(registration_file)
        self.latest_board = latest_board
        self.registration: Registration | None = None
        self._lock = threading.Lock()

    def _session_cwd(self) -> str | None:
        board = self.latest_board()
        harness, _, sid = self.session.partition(":")
        if board is None:
            return None
        row = next((s for s in board.sessions if s.harness == harness and s.session_id == sid), None)
        return row.cwd if row is not None else None

    def register(self, body: dict[str, Any]) -> Registration:
        """Register the pane a request from inside it names; raises :class:`Refused`."""
        presented = body.get("capability")
        if not isinstance(presented, str) or not hmac.compare_digest(presented.encode(), self.capability.encode()):
            raise Refused(403, "the registration capability is missing or wrong")
        if body.get("session") != self.session:
            raise Refused(403, "this prototype is enabled for another session only")
        tmux, pane = body.get("tmux"), body.get("pane")
        if not isinstance(tmux, str) or not isinstance(pane, str) or not pane.startswith("%") or len(pane) > 16:
            raise Refused(400, "send $TMUX and $TMUX_PANE from inside the session's tmux pane")
        socket = tmux.split(",", 1)[0]
        if not socket or not os.path.isabs(socket):
            raise Refused(400, "$TMUX does not name a tmux socket")
        found = _tmux(socket, "display-message", "-p", "-t", pane, "#{pane_id}\t#{pane_current_path}").rstrip("\n")
        pane_id, _, pane_cwd = found.partition("\t")
        if pane_id != pane:
            raise Refused(422, "tmux knows no such pane on that socket")
        cwd = self._session_cwd()
        if cwd is None:
            raise Refused(409, "the session is not on the board, so its directory cannot be checked")
        if os.path.realpath(pane_cwd) != os.path.realpath(cwd):
            raise Refused(409, "that pane is not in the session's working directory")
        made = Registration(socket=socket, pane=pane, at=datetime.now(UTC), cwd=pane_cwd)
        with self._lock:
            self.registration = made
        return made

    def output(self) -> dict[str, Any]:
        """The registered pane's last lines, bounded and redacted; read-only by construction."""
        with self._lock:
            reg = self.registration
        if reg is None:
            return {"registered": False, "reason": "no pane has registered from inside the session yet"}
        try:
            text = _tmux(reg.socket, "capture-pane", "-p", "-J", "-t", reg.pane, "-S", f"-{MAX_LINES}")
        except (Refused, OSError, subprocess.TimeoutExpired) as e:
            return {"registered": True, "available": False, "reason": f"the pane could not be read: {e}"}
        lines = text.rstrip("\n").split("\n")[-MAX_LINES:]
        body = "\n".join(lines)
        clipped = len(body.encode()) > MAX_BYTES
        if clipped:
            body = body.encode()[-MAX_BYTES:].decode("utf-8", "ignore")
        return {
            "registered": True,
            "available": True,
            "pane": reg.pane,
            "registered_at": reg.at.isoformat(),
            "lines": redact(body).split("\n"),
            "clipped": clipped,
            "max_lines": MAX_LINES,
            "read_at": datetime.now(UTC).isoformat(),
        }

    def status(self) -> dict[str, Any]:
        with self._lock:
            reg = self.registration
        return {
            "offered": True,
            "session": self.session,
            "registered": reg is not None,
            "registration_file": str(self.registration_file),
        }
