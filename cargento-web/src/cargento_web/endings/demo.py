"""``--demo``: real git repositories at the demo sessions' working directories, and a few
observed endings, so Attention shows every group from the first minute.

The demo home is a temporary directory; the demo's sessions record working directories
inside it, one folder per project. At the first board this makes a real repository in each
idle session's project, in turn left with uncommitted work, committed clean, or not a
repository at all (an unmeasured reading), and records a stop or an end so each of the six
readings shows: ends go to the event hub's session-end store as an observed end would, so the rows
read ended. Only paths inside the demo home are ever touched.
"""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

from cargento.board import Board, BoardSession

from cargento_web.endings.git import git_environment
from cargento_web.endings.readings import EndingReadings

__all__ = ["DemoRepos"]

#: How the demo leaves each project, in turn.
SHAPES = ("dirty", "clean", "none")
#: How often the demo looks for a reading no session shows any more.
TOP_UP_S = 5.0


class DemoRepos:
    def __init__(self, home: Path, hub: object | None = None) -> None:
        self.home = home.resolve()
        self.hub = hub
        self.seeded = False
        self.shapes: dict[str, str] = {}
        self._last_top_up: datetime | None = None

    def _inside(self, cwd: str | None) -> Path | None:
        if not cwd:
            return None
        path = Path(cwd).resolve()
        try:
            path.relative_to(self.home)
        except ValueError:
            return None
        return path

    def seed(self, board: Board, readings: EndingReadings) -> None:
        """At every board (cheap): make repositories for projects not seen yet, then record an
        ending for each of the six readings that no session shows now. The demo's sessions
        resume work now and then, which retires their readings as it should; this puts new
        ones in their place so every group stays on show."""
        self.seeded = True
        now = board.generated_at
        if self._last_top_up is not None and (now - self._last_top_up).total_seconds() < TOP_UP_S:
            return
        self._last_top_up = now
        idle = [s for s in board.sessions if s.state == "idle" and self._inside(s.cwd) is not None]
        for cwd in sorted({s.cwd for s in idle if s.cwd and s.cwd not in self.shapes}):
            self._make(cwd)
        shown = {f"{e.kind}-{self.shapes.get(e.cwd or '', '')}" for e in readings.all()}
        held = {(e.harness, e.session_id) for e in readings.all()}
        for shape in SHAPES:
            for kind in ("end", "stop"):
                if f"{kind}-{shape}" in shown:
                    continue
                pool = [
                    s for s in idle if self.shapes.get(s.cwd or "") == shape and (s.harness, s.session_id) not in held
                ]
                pool.sort(key=lambda s: s.ended != (kind == "end"))
                if not pool:
                    continue
                s = pool[0]
                held.add((s.harness, s.session_id))
                if kind == "end" and not s.ended:
                    self._end(s, now)
                readings.record(s, kind, now)

    def _make(self, cwd: str) -> None:
        shape = SHAPES[len(self.shapes) % len(SHAPES)]
        self.shapes[cwd] = shape
        path = self._inside(cwd)
        if path is None:
            return
        try:
            if shape == "none":
                path.mkdir(parents=True, exist_ok=True)
            else:
                make_repo(path, dirty=shape == "dirty", env={"PATH": _path()})
        except (OSError, subprocess.SubprocessError):
            pass  # no git here: the reading says unmeasured, as it should

    def _end(self, s: BoardSession, at: datetime) -> None:
        hub: Any = self.hub
        ends = getattr(hub, "ends", None)
        if ends is None or self._inside(str(ends.path)) is None:
            return  # only ever the demo home's own session-end store
        from cargento_web.runtime.stores import End

        ends.record(End(harness=s.harness, session_id=s.session_id, at=at, reason="demo"), at)


def _path() -> str:
    import os

    return os.environ.get("PATH", "/usr/bin:/bin")


def make_repo(path: Path, *, dirty: bool, env: dict[str, str]) -> None:
    """A repository at *path* with one commit; *dirty* leaves a change and a new file."""
    path.mkdir(parents=True, exist_ok=True)
    genv = git_environment(env) | {
        "GIT_AUTHOR_NAME": "Cargento demo",
        "GIT_AUTHOR_EMAIL": "demo@example.invalid",
        "GIT_COMMITTER_NAME": "Cargento demo",
        "GIT_COMMITTER_EMAIL": "demo@example.invalid",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, env=genv, check=True, capture_output=True, timeout=10)

    if not (path / ".git").exists():
        git("init", "-q")
        (path / "README.md").write_text("# demo project\n", encoding="utf-8")
        (path / "app.py").write_text("print('hello')\n", encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", "demo: first commit")
    if dirty:
        (path / "app.py").write_text("print('hello, world')\n", encoding="utf-8")
        (path / "notes.txt").write_text("left uncommitted by the demo\n", encoding="utf-8")
