"""Discovery run by a user file permissions apply to, so unreadable-store tests run as root too.

Root reads a ``chmod 000`` folder as if it were open, so a test of how a plugin handles an
unreadable part of its store proves nothing when the suite runs as root (as CI does).
:func:`discover_unprivileged` runs the plugin's ``discover`` in a child Python process: the child
imports the plugin and builds the context while it still has the parent's user, then, when that
user is root, drops to ``nobody`` (uid and gid 65534, no supplementary groups) before reading the
store. Run by any other user, the child keeps that user, for whom permissions already apply.

::

    found = discover_unprivileged(plugin, home, now=NOW)
    assert found.problems and not found.session_ids

*home* must be reachable by the child's user: build it under the ``unprivileged_home`` fixture
(a world-traversable folder outside pytest's private temporary directory). The child checks
this after dropping privileges and fails the call when it cannot list *home*, so an unreachable
home can never pass for an unreadable store.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["NOBODY", "UnprivilegedDiscovery", "discover_unprivileged"]

#: The uid and gid the child takes when the suite runs as root.
NOBODY = 65534


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class UnprivilegedDiscovery:
    """What ``discover`` returned in the child, and the user it ran as."""

    uid: int
    session_ids: tuple[str, ...]
    problems: tuple[str, ...]


def discover_unprivileged(
    plugin: Any, home: Path, *, now: datetime | float, env: dict[str, str] | None = None, timeout_s: float = 60.0
) -> UnprivilegedDiscovery:
    """Run ``plugin.discover`` over *home* in a child process whose file permissions apply.

    *plugin* is the plugin module (or any object of an importable module that has a ``discover``
    hook); *now* and *env* are passed to :func:`~cargento.testing.homes.make_context`. Raises
    :class:`RuntimeError` with the child's error output when the child fails.
    """
    module = plugin.__name__ if isinstance(plugin, type(sys)) else type(plugin).__module__
    moment = now.timestamp() if isinstance(now, datetime) else float(now)
    request = {"module": module, "home": str(home), "now": moment, "env": env or {}, "uid": NOBODY}
    done = subprocess.run(
        [sys.executable, "-m", __name__],
        input=json.dumps(request).encode(),
        capture_output=True,
        timeout=timeout_s,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"the unprivileged discovery failed ({done.returncode}): {done.stderr.decode(errors='replace')}"
        )
    answer = json.loads(done.stdout)
    return UnprivilegedDiscovery(
        uid=int(answer["uid"]), session_ids=tuple(answer["session_ids"]), problems=tuple(answer["problems"])
    )


def _child(request: dict[str, Any]) -> dict[str, Any]:
    from cargento.testing.homes import make_context

    module = importlib.import_module(request["module"])
    home = Path(request["home"])
    ctx = make_context(home, env=request["env"], now=float(request["now"]))
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(int(request["uid"]))
        os.setuid(int(request["uid"]))
    if os.geteuid() == 0:
        raise RuntimeError("still root after dropping privileges")
    try:
        os.listdir(home)
    except OSError as exc:
        raise RuntimeError(f"uid {os.geteuid()} cannot list the home {home}: {exc}") from exc
    found = module.discover(ctx=ctx)
    return {
        "uid": os.geteuid(),
        "session_ids": [ref.session_id for ref in found.sessions],
        "problems": list(found.problems),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(_child(json.loads(sys.stdin.read()))))
