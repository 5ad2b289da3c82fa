"""The observer's :class:`~.intents.IntentSource` over the annotation store.

It opens its own :class:`cargento_web.annotations.store.AnnotationStore` over the run's
``cargento-annotations.json`` (every write there re-reads the file under a lock, so the observer
and the annotations feature never lose each other's writes), reads the current revision's words,
and records readings with ``add_reading``. When the store is off for the run, not installed, or
not trusted, the reading gate is closed and :meth:`closed` says why.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .intents import Intent

__all__ = ["AnnotatedIntents"]

log = logging.getLogger("cargento_web")


class AnnotatedIntents:
    def __init__(self, state_dir: Path, *, off: bool) -> None:
        self._store: Any = None
        self._why: str | None = None
        if off:
            self._why = "annotations are off for this run (--no-annotations)"
            return
        try:
            module = importlib.import_module("cargento_web.annotations.store")
        except ImportError:
            self._why = "the annotation store is not part of this build"
            return
        self._store = module.AnnotationStore(state_dir / module.ANNOTATIONS_FILE)

    @property
    def store(self) -> Any:
        return self._store

    def closed(self) -> str | None:
        if self._store is None:
            return self._why
        view = self._store.view()
        if getattr(view, "state", None) == "untrusted":
            return "the annotation store could not be read whole, so nothing is read against it until it is moved or repaired"
        return None

    def _intent(self, entry: Any) -> Intent | None:
        if type(entry).__name__ != "Words":
            return None
        current = entry.current
        if current.goal is None and not current.lines:
            return None
        return Intent(
            harness=entry.harness,
            sid=entry.sid,
            goal=current.goal,
            goal_source=current.goal_source,
            lines=tuple(line.text for line in current.lines),
            revision=current.number,
            unsettled_after=entry.unsettled_after,
            readings=tuple(entry.readings),
        )

    def intent(self, harness: str, sid: str) -> Intent | None:
        if self._store is None:
            return None
        return self._intent(self._store.get(harness, sid))

    def every(self) -> Sequence[Intent]:
        if self._store is None:
            return ()
        found = (self._intent(e) for e in self._store.entries())
        return tuple(i for i in found if i is not None)

    def record(self, harness: str, sid: str, reading: Mapping[str, Any]) -> bool:
        if self._store is None:
            return False
        try:
            result = self._store.add_reading(harness, sid, dict(reading), datetime.now(UTC))
        except Exception:
            log.exception("a reading could not be recorded against the session's words")
            return False
        return bool(getattr(result, "persisted", False))

    def adopt(self, harness: str, sid: str, prompt: str) -> Intent | None:
        """Adopt *prompt* (its first line, at most 240 characters) as the session's goal, saved
        as words "from your prompt"; ``None`` when it could not be saved."""
        if self._store is None:
            return None
        first = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
        if not first:
            return None
        goal = first if len(first) <= 240 else first[:239] + "…"
        module: Any = importlib.import_module("cargento_web.annotations.store")
        change = module.Change(set_goal=True, goal=goal, goal_source="prompt", expected_revision=0)
        try:
            result = self._store.annotate(harness, sid, change, datetime.now(UTC))
        except Exception:
            log.exception("the prompt could not be adopted as the session's goal")
            return None
        if result.outcome not in ("stored", "unchanged"):
            return None
        return self.intent(harness, sid)

    def on_discard(self, callback: Callable[[str, str], None]) -> None:
        if self._store is not None:
            self._store.on_discard(callback)
