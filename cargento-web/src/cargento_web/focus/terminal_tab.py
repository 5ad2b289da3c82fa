"""On macOS, the terminal application's tab that shows a tmux client: selected, never activated.

After the tmux part of a raise, the one terminal attached to the session's tmux session is
named by its tty (``#{client_tty}``, ``/dev/ttys003``). Terminal.app and iTerm2 both say which
tty each of their tabs (iTerm2: each session in a tab) runs on, so the tab showing that client
can be found and selected inside its own window. The script asks only applications that are
already running (``application "…" is running`` launches nothing), selects the tab and
nothing else: no ``activate``, so no window comes in front of another application, and no
``keystroke`` or ``do script``, so nothing is typed. A tab that cannot be found, or an
``osascript`` that fails, is reported as such; the tmux part stands either way.

The platform and the ``osascript`` executable are injected, so the tests drive a recording
stand-in on any platform.
"""

from __future__ import annotations

import re
import subprocess

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["OSASCRIPT_TIMEOUT_S", "TabRaise", "TerminalTabs", "tab_script"]

#: Seconds the one ``osascript`` call may take.
OSASCRIPT_TIMEOUT_S = 5.0
#: A tty path as tmux reports it; anything else is never put into a script.
_TTY = re.compile(r"^/dev/[A-Za-z0-9]+(?:/[A-Za-z0-9]+)?$")
#: What the script answers: the application whose tab it selected, or ``none``.
_ANSWERS = {"Terminal": "Terminal", "iTerm2": "iTerm2", "none": None}


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class TabRaise:
    """What became of the tab part of a raise."""

    #: ``selected``, ``no-tab`` (no running Terminal.app or iTerm2 tab shows that tty),
    #: ``failed`` (osascript could not run, refused, or answered something unknown),
    #: ``tmux-only`` (not macOS, or no osascript: only tmux was asked).
    outcome: str
    words: str
    application: str | None = None


def tab_script(tty: str) -> str:
    """The AppleScript that selects the tab running on *tty* (a validated tty path)."""
    if not _TTY.match(tty):
        raise ValueError(f"not a tty path: {tty!r}")
    return f'''set wanted to "{tty}"
if application "Terminal" is running then
  tell application "Terminal"
    repeat with w in windows
      repeat with t in tabs of w
        if tty of t is wanted then
          set selected of t to true
          return "Terminal"
        end if
      end repeat
    end repeat
  end tell
end if
if application id "com.googlecode.iterm2" is running then
  tell application id "com.googlecode.iterm2"
    repeat with w in windows
      repeat with t in tabs of w
        repeat with s in sessions of t
          if tty of s is wanted then
            tell t to select
            tell s to select
            return "iTerm2"
          end if
        end repeat
      end repeat
    end repeat
  end tell
end if
return "none"
'''


class TerminalTabs:
    """Selects the macOS terminal tab of a tmux client, where one can be named."""

    def __init__(self, platform: str, osascript: str | None) -> None:
        self.platform = platform
        self.osascript = osascript

    @property
    def reaches(self) -> bool:
        """True when a raise also asks for the terminal application's tab."""
        return self.platform == "darwin" and self.osascript is not None

    def coverage_words(self) -> str:
        if self.reaches:
            return "on macOS also the Terminal.app or iTerm2 tab showing that terminal, where one does"
        if self.platform == "darwin":
            return "tmux only: osascript is not on this dashboard's PATH, so no terminal tab is selected"
        return "tmux only: terminal application tabs are named on macOS alone"

    def select(self, tty: str | None) -> TabRaise:
        if not self.reaches or self.osascript is None:
            return TabRaise(outcome="tmux-only", words=self.coverage_words())
        if tty is None or not _TTY.match(tty):
            return TabRaise(
                outcome="failed", words="tmux named no tty for the attached terminal, so no tab was looked for"
            )
        try:
            done = subprocess.run(
                [self.osascript, "-"],
                input=tab_script(tty),
                capture_output=True,
                text=True,
                timeout=OSASCRIPT_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return TabRaise(outcome="failed", words=f"osascript did not answer within {OSASCRIPT_TIMEOUT_S:g} s")
        except OSError as exc:
            return TabRaise(outcome="failed", words=f"osascript could not be run: {exc.strerror or exc}")
        if done.returncode != 0:
            said = done.stderr.strip().splitlines()[-1][:200] if done.stderr.strip() else f"exit {done.returncode}"
            return TabRaise(outcome="failed", words=f"osascript refused: {said}")
        answer = done.stdout.strip()
        if answer not in _ANSWERS:
            return TabRaise(
                outcome="failed", words=f"osascript answered {answer[:80]!r}, which this build does not know"
            )
        application = _ANSWERS[answer]
        if application is None:
            return TabRaise(outcome="no-tab", words=f"no running Terminal.app or iTerm2 tab shows {tty}")
        return TabRaise(
            outcome="selected", words=f"the {application} tab showing {tty} is selected", application=application
        )
