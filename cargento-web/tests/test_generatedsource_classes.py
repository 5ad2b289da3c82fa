"""What attrs compiles for the classes a server start makes: no repr, ``__eq__`` or
``__hash__`` of their own, and no equality at all for the objects only ever held by identity.

attrs compiles each class's generated methods from source at import (``generatedsource``
forgets that source afterwards); a start makes about two hundred classes. Each takes the one
shared ``__repr__`` (:mod:`cargento.sharedrepr`) instead of compiling its own, and the identity
objects named here (caches, a pass's working state, lanes, contexts, flights) have no
equality but their identity. Every other class is a value model, compared, hashed or
deduplicated somewhere, and takes the shared value ``__eq__`` and ``__hash__``
(:mod:`cargento.sharedmethods`): the set of identity classes is pinned exactly, so neither a
value model losing its equality nor a new identity object passes unnoticed.
"""

from __future__ import annotations

import json
import subprocess
import sys

_START = """
import gc, importlib, json
import cargento.cli, cargento.board, cargento.plugins
from cargento.plugins import load_registry
load_registry(env={})
import cargento.events.lanes, cargento.readers.follow
# (read only for a store that has sessions: the test home has none)
import cargento_harness_antigravity.mapping, cargento_harness_codex.rollout, cargento_harness_pi.tree
import cargento_web.server, cargento_web.app
from cargento_web.extensions import FEATURES
for name in FEATURES:
    importlib.import_module(name)
found = {}
for c in gc.get_objects():
    if isinstance(c, type) and "__attrs_attrs__" in c.__dict__ and c.__module__.startswith("cargento"):
        found[f"{c.__module__}.{c.__qualname__}"] = {"shared": c.__repr__.__module__ == "cargento.sharedrepr", "by_identity": "__eq__" not in c.__dict__, "shared_eq": getattr(c.__dict__.get("__eq__"), "__module__", None) == "cargento.sharedmethods"}
print(json.dumps(found))
"""

#: The attrs classes made at start that are compared by identity alone.
IDENTITY = {
    "cargento.board.assembly.HarnessShare",
    "cargento.board.assembly._Known",
    "cargento.board.assembly._Merged",
    "cargento.board.builder._Derived",
    "cargento.board.builder._Settled",
    "cargento.board.discovery._CachedReading",
    "cargento.board.discovery._HookAnswers",
    "cargento.board.derivation._IdleRow",
    "cargento.board.session_row.SessionRow",
    "cargento.events.lanes.GateStanding",
    "cargento.events.lanes.Lane",
    "cargento.passmemo._Held",
    "cargento.readers.follow.FollowedSummary",
    "cargento_harness_antigravity.mapping._Shared",
    "cargento_harness_claude.discovery.Index",
    "cargento_harness_claude.discovery._Pass",
    "cargento_harness_claude.heads._Known",
    "cargento_harness_claude.listing.Project",
    "cargento_harness_codex.rollout.Rollout",
    "cargento_harness_codex.summary.Summary",
    "cargento_harness_codex.summary._Pending",
    "cargento_harness_copilot.records.SessionSummary",
    "cargento_harness_goose.store.Catalogue",
    "cargento_harness_goose.store._Ledger",
    "cargento_harness_opencode.store.Snapshot",
    "cargento_harness_pi.tree.SessionTree",
    "cargento_web.cockpit.spacedock._Cached",
    "cargento_web.environment.Served",
    "cargento_web.extensions.ExtensionContext",
    "cargento_web.observer.service.Flight",
    "cargento_web.telemetry.ledger._Session",
    "cargento_web.telemetry.ledger._Tally",
}


def _start_classes() -> dict[str, dict[str, bool]]:
    done = subprocess.run([sys.executable, "-c", _START], capture_output=True, text=True, check=True, timeout=120)
    found: dict[str, dict[str, bool]] = json.loads(done.stdout)
    assert len(found) > 150, f"only {len(found)} attrs classes seen at start"
    return found


def test_the_classes_made_at_start_share_one_repr() -> None:
    own = sorted(name for name, seen in _start_classes().items() if not seen["shared"])
    assert own == [], f"compile a __repr__ of their own: {own}"


def test_only_the_identity_objects_go_without_eq() -> None:
    found = _start_classes()
    assert not IDENTITY - found.keys(), sorted(IDENTITY - found.keys())
    assert {name for name, seen in found.items() if seen["by_identity"]} == IDENTITY


def test_the_value_models_share_one_eq_and_hash() -> None:
    own = sorted(name for name, seen in _start_classes().items() if not seen["by_identity"] and not seen["shared_eq"])
    assert own == [], f"compile an __eq__ of their own: {own}"
