"""Where GitHub Copilot CLI keeps its store, and which session directories are rows."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs
from cargento.locations import Root, resolve_root
from cargento.models import HarnessContext
from cargento.readers import NotRegularFile, entry_is_dir, file_kind, open_regular, unreadable, why
from cargento.readers.sqlite import database_problem
from cargento.sharedmethods import shared_methods

__all__ = ["DEFAULT", "SESSION_DIRS", "VARIABLE", "SessionFiles", "find_sessions", "ledger_path", "root"]

#: The relocation variable; when set it is authoritative, with no fallback.
VARIABLE: str | None = "COPILOT_HOME"
DEFAULT = ".copilot"
#: Session folders below the root, current first, then the legacy one.
SESSION_DIRS = ("session-state", "history-session-state")
#: A directory holding no events.jsonl is not a session.
EVENTS = "events.jsonl"


def root(ctx: HarnessContext) -> Root:
    """The store root for this run."""
    return resolve_root(ctx, variable=VARIABLE, default=DEFAULT, suffix="")


def ledger_path(base: Path) -> Path:
    """The global billing ledger below the root."""
    return base / "session-store.db"


@shared_methods
@attrs.frozen(repr=False, eq=False)
class SessionFiles:
    """One session directory and the files a reading of it depends on."""

    session_id: str
    directory: Path
    mtime_ns: int

    @property
    def events(self) -> Path:
        return self.directory / EVENTS

    @property
    def todos(self) -> Path:
        return self.directory / "session.db"

    @property
    def workspace(self) -> Path:
        return self.directory / "workspace.yaml"


def find_sessions(base: Path) -> tuple[list[SessionFiles], list[str]]:
    """Every session directory with an ``events.jsonl``; the same id in the current and the
    legacy folder resolves to the one written last. Returns the sessions and the problems."""
    found: dict[str, SessionFiles] = {}
    problems: list[str] = []
    for folder in SESSION_DIRS:
        top = base / folder
        try:
            entries = list(os.scandir(top))
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"cannot list {top}: {why(exc)}")
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if not entry_is_dir(entry):
                if not os.path.exists(entry.path):  # a link loop or a dangling link
                    problems.append(unreadable(entry.path, _stat_error(entry.path)))
                continue
            events = os.path.join(entry.path, EVENTS)
            try:
                st = os.stat(events)
            except FileNotFoundError:
                continue  # not a session folder
            except OSError as exc:
                problems.append(unreadable(events, exc))
                continue
            if not stat.S_ISREG(st.st_mode):
                problems.append(unreadable(events, NotRegularFile(events, file_kind(st.st_mode))))
                continue
            try:
                with open_regular(events):
                    pass
            except OSError as exc:
                problems.append(unreadable(events, exc))
                continue
            todo_problem = database_problem(os.path.join(entry.path, "session.db"))
            if todo_problem is not None:
                problems.append(f"{os.path.join(entry.path, 'session.db')}: {todo_problem}")
            newest = st.st_mtime_ns
            for extra in ("session.db", "workspace.yaml"):
                try:
                    newest = max(newest, os.stat(os.path.join(entry.path, extra)).st_mtime_ns)
                except OSError:
                    pass
            candidate = SessionFiles(session_id=entry.name, directory=Path(entry.path), mtime_ns=newest)
            current = found.get(entry.name)
            if current is None or candidate.mtime_ns > current.mtime_ns:
                found[entry.name] = candidate
    return sorted(found.values(), key=lambda s: s.session_id), problems


def _stat_error(path: str) -> OSError:
    try:
        os.stat(path)
    except OSError as exc:
        return exc
    return OSError(0, "not a folder", path)
