"""``--forget``: the one-shot command that deletes what the server observed and exits.

It deletes the local history (``cargento-history.json``) and the session-end store
(``cargento-ends.json``), and hands every operator feature that keeps something ``--forget``
covers its turn: a feature module offering ``forget(state_dir) -> list[str]`` (the annotations
feature removes its discard records, the observer clears reading permission without erasing
spend timestamps). Nothing you typed is deleted.

It refuses whole while a dashboard answers on ``--port``, naming all three stores: a running
instance would write the deleted history back and go on publishing the ends it observed, and
the command does not do some of its work and leave the rest.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cargento.statedir import state_dir

from cargento_web.extensions import FEATURES
from cargento_web.history.store import HISTORY_FILE
from cargento_web.probe import probe
from cargento_web.runtime.stores import ENDS_FILE

__all__ = ["ANNOTATIONS_FILE", "STORES", "forget", "refusal"]

ANNOTATIONS_FILE = "cargento-annotations.json"
#: The three stores ``--forget`` touches, as the refusal names them.
STORES = (
    f"the local history ({HISTORY_FILE})",
    f"the session-end store ({ENDS_FILE})",
    f"the discard records in {ANNOTATIONS_FILE}",
)


def refusal(port: int, health: Mapping[str, Any] | None) -> str:
    pid = health.get("pid") if health else None
    who = f"a dashboard answers on port {port}" + (f" (pid {pid})" if pid else "")
    return (
        f"cargento: --forget refused: {who}. It would touch {', '.join(STORES)}; the running board would "
        "write the deleted history back and go on publishing the ends it observed, so nothing was deleted. "
        f"Stop it first: cargento --port {port} --stop"
    )


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def forget(port: int, env: Mapping[str, str] | None = None) -> int:
    """Carry out ``--forget`` for the dashboard on *port*; returns the exit code."""
    who = probe(port)
    if who.kind == "cargento":
        print(refusal(port, who.health), file=sys.stderr)
        return 1
    folder = state_dir(env)
    done: list[str] = []
    for name in (HISTORY_FILE, ENDS_FILE):
        if _unlink(folder / name):
            done.append(f"deleted {folder / name}")
        else:
            done.append(f"{folder / name}: not there")
    for module in FEATURES:
        hook: Callable[[Path], list[str]] | None = getattr(importlib.import_module(module), "forget", None)
        if hook is None:
            continue
        done.extend(hook(folder))
    for line in done:
        print(line)
    print("kept everything you typed (goals and expected outcomes); a discard record holds no text")
    return 0
