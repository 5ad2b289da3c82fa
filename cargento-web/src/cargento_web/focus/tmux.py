"""The tmux commands the terminal raise runs, and nothing else.

Every command names the server by the socket its session's hook reported (``tmux -S``), so it
reaches that server whatever ``TMUX`` this dashboard inherited. Two kinds only: questions
(``display-message -p``, ``list-clients``) and the raise itself (``select-window`` then
``select-pane`` on the session's pane), which changes what the attached terminal shows. No
``send-keys``, no ``switch-client``, nothing that types or brings a window in front.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Sequence

import attrs
from cargento.events.payloads import Terminal

__all__ = ["TMUX_TIMEOUT_S", "PaneReach", "Tmux"]

#: Seconds any one tmux command may take.
TMUX_TIMEOUT_S = 5.0


@attrs.frozen(kw_only=True)
class PaneReach:
    """Whether a pane can be raised, and why not."""

    reachable: bool
    #: ``ok``, ``no-tmux``, ``no-server`` (socket gone or not ours), ``other-server`` (the
    #: socket now belongs to a different tmux server), ``pane-gone``, ``no-client``,
    #: ``clients`` (more than one terminal attached).
    reason: str
    clients: int = 0
    tmux_session: str | None = None


class Tmux:
    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable or shutil.which("tmux")

    def _run(self, terminal: Terminal, args: Sequence[str]) -> subprocess.CompletedProcess[str] | None:
        if self.executable is None:
            return None
        try:
            return subprocess.run(
                [self.executable, "-S", terminal.socket, *args],
                capture_output=True,
                text=True,
                timeout=TMUX_TIMEOUT_S,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    def _socket_is_ours(self, terminal: Terminal) -> bool:
        try:
            found = os.stat(terminal.socket)
        except OSError:
            return False
        getuid = getattr(os, "getuid", None)
        return stat.S_ISSOCK(found.st_mode) and (getuid is None or found.st_uid == getuid())

    def reach(self, terminal: Terminal) -> PaneReach:
        """Can *terminal*'s pane be raised now: its server is the one the hook ran under, the
        pane still exists, and exactly one terminal is attached to the pane's session."""
        if self.executable is None:
            return PaneReach(reachable=False, reason="no-tmux")
        if not self._socket_is_ours(terminal):
            return PaneReach(reachable=False, reason="no-server")
        where = self._run(terminal, ["display-message", "-p", "-t", terminal.pane, "#{pid}\t#{session_id}"])
        if where is None or where.returncode != 0:
            return PaneReach(reachable=False, reason="pane-gone")
        pid, _, session = where.stdout.strip().partition("\t")
        if pid != str(terminal.server_pid):
            return PaneReach(reachable=False, reason="other-server")
        listed = self._run(terminal, ["list-clients", "-t", session, "-F", "#{client_tty}"])
        if listed is None or listed.returncode != 0:
            return PaneReach(reachable=False, reason="pane-gone", tmux_session=session)
        clients = len([line for line in listed.stdout.splitlines() if line.strip()])
        if clients == 0:
            return PaneReach(reachable=False, reason="no-client", tmux_session=session)
        if clients > 1:
            return PaneReach(reachable=False, reason="clients", clients=clients, tmux_session=session)
        return PaneReach(reachable=True, reason="ok", clients=1, tmux_session=session)

    def raise_pane(self, terminal: Terminal) -> tuple[bool, str]:
        """Select the pane's window and the pane in its session; ``(done, what happened)``."""
        for args in (["select-window", "-t", terminal.pane], ["select-pane", "-t", terminal.pane]):
            done = self._run(terminal, args)
            if done is None:
                return False, "tmux could not be run"
            if done.returncode != 0:
                return False, f"tmux refused: {done.stderr.strip()[:200] or args[0]}"
        return True, "the terminal now shows the session's pane"
