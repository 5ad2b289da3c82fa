"""How sessions landed (issue 17): the end-of-session git probe and the ending readings.

``/api/data`` carries ``endings``: ``{"on", "git", "readings": {row key: reading}, "caveat"}``
(:meth:`cargento_web.endings.readings.Ending.document` is one reading). The page builds CLOSE
THE LOOP, COMING NEXT, At risk's uncommitted work and conflicting completion evidence, the row
marks and the session page's "how it landed" from it. Nothing here is sent to a harness.

The session ends come from the event hub's session-end store (``cargento-ends.json``,
:class:`cargento_web.runtime.stores.EndsStore`); this feature keeps no store of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cargento.board import Board

from cargento_web.endings.readings import EndingReadings
from cargento_web.extensions import Extension, ExtensionContext

if TYPE_CHECKING:
    from cargento_web.endings.demo import DemoRepos
    from cargento_web.endings.git import GitReading

__all__ = ["CAVEAT", "EndingsExtension", "create"]

CAVEAT = (
    "A stop is not a session end, and neither tells Cargento whether you read the result, whether "
    "commits reached a remote, or why the process ended. Git is read once, at the stop or end; "
    "an unmeasured reading is not a clean tree."
)
NO_GIT = "--no-git: no git command runs this run, so no reading says whether work was left uncommitted"


class EndingsExtension(Extension):
    name = "endings"

    def __init__(self, context: ExtensionContext) -> None:
        self.context = context
        self.git = not context.options.no_git
        self._board_lock = threading.Lock()
        self.demo: DemoRepos | None = None
        if context.demo:  # the demo's repositories are imported only under --demo
            from cargento_web.endings.demo import DemoRepos

            self.demo = DemoRepos(context.state_dir.parent, context.hub)
        env = dict(context.env)

        def probe(cwd: str | None) -> GitReading:
            # git is asked when a session stops or ends; its module is imported then, not at start.
            from cargento_web.endings.git import probe_git

            return probe_git(cwd, env=env)

        hub: Any = context.hub
        session_end = getattr(hub, "session_end", None)

        def ended_at(harness: str, sid: str) -> datetime | None:
            end = session_end(harness, sid) if session_end is not None else None
            return end.at if end is not None else None

        self.readings = EndingReadings(probe=probe if self.git else None, changed=context.changed, ended_at=ended_at)

    def on_board(self, board: Board) -> None:
        with self._board_lock:  # two board flavours may be built at once
            if self.demo is not None:
                self.demo.seed(board, self.readings)
            self.readings.on_board(board, self.context.board_changes(board))

    def document(self) -> Mapping[str, Any]:
        return {
            "endings": {
                "on": True,
                "git": self.git,
                "git_off_reason": None if self.git else NO_GIT,
                "readings": self.readings.document(),
                "caveat": CAVEAT,
            }
        }

    def page_config(self) -> Mapping[str, Any]:
        return {"on": True, "git": self.git, "caveat": CAVEAT, "git_off_reason": None if self.git else NO_GIT}

    def close(self) -> None:
        self.readings.close()


def create(context: ExtensionContext) -> EndingsExtension:
    return EndingsExtension(context)
