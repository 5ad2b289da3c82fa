"""The tmux commands the terminal raise runs, and nothing else.

Every command names the server by the socket its session's hook reported (``tmux -S``), so it
reaches that server whatever ``TMUX`` this dashboard inherited. Two kinds only: questions
(``display-message -p``, ``list-clients``) and the raise itself (``select-window`` then
``select-pane`` on the session's pane), which changes what the attached terminal shows. No
``send-keys``, no ``switch-client``, nothing that types or brings a window in front.

The same two questions also say whether the pane is *in front of you*: it is the active pane
of its session's current window, exactly one terminal is attached to that session, and tmux
marks that terminal ``focused``. The mark is believed only with tmux's ``focus-events`` on:
tmux sets it when a terminal attaches and clears it only on a focus-out the terminal reports,
so without focus reporting asked of the terminal it says nothing, and the reading is unknown
(``None``), never "in front". No activity-recency stand-in is used: the last key typed into a
terminal says where you were, not where you are looking.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Sequence

import attrs
from cargento.events.payloads import Terminal
from cargento.sharedmethods import shared_methods

__all__ = ["TMUX_TIMEOUT_S", "PaneReach", "Tmux"]

#: Seconds any one tmux command may take.
TMUX_TIMEOUT_S = 5.0
#: The pane's server pid and session, whether it is its window's active pane and that window
#: its session's current one, and the server's ``focus-events`` option.
_PANE_FORMAT = "#{pid}\t#{session_id}\t#{pane_active}\t#{window_active}\t#{focus-events}"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class PaneReach:
    """Whether a pane can be raised, and why not."""

    reachable: bool
    #: ``ok``, ``no-tmux``, ``no-server`` (socket gone or not ours), ``other-server`` (the
    #: socket now belongs to a different tmux server), ``pane-gone``, ``no-client``,
    #: ``clients`` (more than one terminal attached).
    reason: str
    clients: int = 0
    tmux_session: str | None = None
    #: The one attached terminal's tty (``/dev/ttys003``), when exactly one is attached.
    client_tty: str | None = None
    #: The pane is on the one attached terminal's screen and that terminal has your focus:
    #: ``True``/``False``, or ``None`` when tmux cannot tell (``focus-events`` off, or the
    #: pane is not reachable at all).
    in_front: bool | None = None


class Tmux:
    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable or shutil.which("tmux")

    def _run(
        self, terminal: Terminal, args: Sequence[str], timeout_s: float = TMUX_TIMEOUT_S
    ) -> subprocess.CompletedProcess[str] | None:
        if self.executable is None:
            return None
        try:
            return subprocess.run(
                [self.executable, "-S", terminal.socket, *args],
                capture_output=True,
                text=True,
                timeout=timeout_s,
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

    def reach(self, terminal: Terminal, timeout_s: float = TMUX_TIMEOUT_S) -> PaneReach:
        """Can *terminal*'s pane be raised now: its server is the one the hook ran under, the
        pane still exists, and exactly one terminal is attached to the pane's session; and is
        it in front of you. Each of its two questions may take *timeout_s*."""
        if self.executable is None:
            return PaneReach(reachable=False, reason="no-tmux")
        if not self._socket_is_ours(terminal):
            return PaneReach(reachable=False, reason="no-server")
        where = self._run(terminal, ["display-message", "-p", "-t", terminal.pane, _PANE_FORMAT], timeout_s)
        if where is None or where.returncode != 0:
            return PaneReach(reachable=False, reason="pane-gone")
        fields = where.stdout.strip().split("\t")
        pid, session = fields[0], fields[1] if len(fields) > 1 else ""
        if pid != str(terminal.server_pid):
            return PaneReach(reachable=False, reason="other-server")
        listed = self._run(terminal, ["list-clients", "-t", session, "-F", "#{client_tty}\t#{client_flags}"], timeout_s)
        if listed is None or listed.returncode != 0:
            return PaneReach(reachable=False, reason="pane-gone", tmux_session=session)
        clients = [line.split("\t") for line in listed.stdout.splitlines() if line.strip()]
        if not clients:
            return PaneReach(reachable=False, reason="no-client", tmux_session=session, in_front=False)
        if len(clients) > 1:
            return PaneReach(reachable=False, reason="clients", clients=len(clients), tmux_session=session)
        tty = clients[0][0]
        flags = set(clients[0][1].split(",")) if len(clients[0]) > 1 else set()
        shown = fields[2:4] == ["1", "1"]
        focus_events = len(fields) > 4 and fields[4] in ("1", "on")
        in_front: bool | None
        if not shown:
            in_front = False  # the terminal shows another window or pane, whatever its focus
        elif not focus_events:
            in_front = None
        else:
            in_front = "focused" in flags
        return PaneReach(
            reachable=True, reason="ok", clients=1, tmux_session=session, client_tty=tty or None, in_front=in_front
        )

    def raise_pane(self, terminal: Terminal) -> tuple[bool, str]:
        """Select the pane's window and the pane in its session; ``(done, what happened)``."""
        for args in (["select-window", "-t", terminal.pane], ["select-pane", "-t", terminal.pane]):
            done = self._run(terminal, args)
            if done is None:
                return False, "tmux could not be run"
            if done.returncode != 0:
                return False, f"tmux refused: {done.stderr.strip()[:200] or args[0]}"
        return True, "the terminal now shows the session's pane"
