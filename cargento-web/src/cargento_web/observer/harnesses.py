"""What the harness plugins declare to the observer, asked through the registry.

The observer names no harness. Which installed CLI can read a session comes from the plugins'
``reading_provider`` hooks; whose work (checks, files, results) a reading may quote, from
whether a plugin implements ``work_record``; whose latest prompt may be adopted as a goal, from
:attr:`cargento.models.HarnessInfo.prompt_as_goal`. A harness whose plugin implements no
``work_record`` is one "Cargento can't read work from": only its instructions, tasks,
dispatches and gate are sent.
"""

from __future__ import annotations

import threading

from cargento.board import BoardBuilder, BoardSession
from cargento.models import ReadingProvider, SessionRef, WorkRecord

__all__ = ["Declared"]


class Declared:
    """The observer's view of the loaded plugins (providers cached once per run)."""

    def __init__(self, builder: BoardBuilder) -> None:
        self.builder = builder
        self.registry = builder.registry
        self._lock = threading.Lock()
        self._providers: tuple[ReadingProvider, ...] | None = None
        self._own: dict[str, str] = {}
        self._describes: dict[str, str | None] = {}

    # -- reading providers ------------------------------------------------------------------

    def providers(self) -> tuple[ReadingProvider, ...]:
        """Every declared provider, each key once, in default order (rank, then key)."""
        with self._lock:
            if self._providers is None:
                found: dict[str, ReadingProvider] = {}
                for harness in self.registry.loaded():
                    if not self.registry.implements(harness, "reading_provider"):
                        continue
                    value = getattr(self.registry.call(harness, "reading_provider"), "value", None)
                    if isinstance(value, ReadingProvider) and value.key and value.executable:
                        found.setdefault(value.key, value)
                        self._own[harness] = value.key
                self._providers = tuple(sorted(found.values(), key=lambda p: (p.default_rank, p.key)))
            return self._providers

    def provider(self, key: str | None) -> ReadingProvider | None:
        return next((p for p in self.providers() if p.key == key), None)

    def preference(self, harness: str) -> tuple[ReadingProvider, ...]:
        """The providers tried for *harness*, in order: the one its own plugin declares, then
        the others in default order."""
        ordered = self.providers()
        own = self._own.get(harness)
        return tuple(sorted(ordered, key=lambda p: p.key != own))

    def summary_provider(self) -> str | None:
        """The provider that offers goal summaries, first in default order; ``None`` when none does."""
        return next((p.key for p in self.providers() if p.summaries), None)

    # -- work records ---------------------------------------------------------------------

    def reads_work(self, harness: str) -> bool:
        return harness in self.registry.harnesses and self.registry.implements(harness, "work_record")

    def work_harnesses(self) -> list[str]:
        return [h for h in self.registry.loaded() if self.reads_work(h)]

    def describes(self, harness: str) -> str | None:
        """What *harness*'s work record holds, in its plugin's words (nothing is read; asked once
        per harness per run)."""
        with self._lock:
            if harness in self._describes:
                return self._describes[harness]
        found = self._call(harness, SessionRef(harness=harness, session_id="", path=""), tool_output=False)
        told = found.describes if found is not None else None
        with self._lock:
            self._describes[harness] = told
        return told

    def work(self, session: BoardSession, tool_output: bool) -> WorkRecord | None:
        """The session's work record from its plugin; ``None`` when the plugin has none (or it
        faulted: the fault is on that harness's strip entry)."""
        discovery = self.builder.last_discovery.get(session.harness)
        sessions = discovery.sessions if discovery is not None else ()
        ref = next((r for r in sessions if r.session_id == session.session_id), None)
        if ref is None:
            ref = SessionRef(harness=session.harness, session_id=session.session_id, path="")
        return self._call(session.harness, ref, tool_output=tool_output)

    def _call(self, harness: str, ref: SessionRef, *, tool_output: bool) -> WorkRecord | None:
        if not self.reads_work(harness):
            return None
        ctx = self.builder.context(harness, now=self.builder.clock())
        value = getattr(
            self.registry.call(harness, "work_record", ref=ref, ctx=ctx, tool_output=tool_output), "value", None
        )
        return value if isinstance(value, WorkRecord) else None

    # -- adopted goals ---------------------------------------------------------------------

    def adopts(self, harness: str) -> bool:
        """Whether *harness*'s recorded latest prompt is your own words (``prompt_as_goal``)."""
        info = self.registry.harnesses.get(harness)
        return bool(info is not None and info.prompt_as_goal)

    def adopt_harnesses(self) -> list[str]:
        return [h for h in self.registry.loaded() if self.adopts(h)]
