"""Fake and deliberately broken harness plugins, for testing core and the web app."""

from __future__ import annotations

from datetime import datetime, timedelta

from cargento import hookimpl
from cargento.errors import HarnessError
from cargento.models import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessInfo,
    ModelInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    TurnEvidence,
    Usage,
)

__all__ = ["BrokenDiscover", "FakeHarness", "FakeSession", "RaisingRead", "WrongType"]


class FakeSession:
    """One scripted session: ages are seconds before ``ctx.now``."""

    def __init__(
        self,
        session_id: str,
        *,
        age_s: float = 10.0,
        cwd: str | None = "/w/fake/project",
        title: str | None = "A fake session",
        turn: str = "unknown",
        gate: Gate | None = None,
        model: str | None = "fake-model-1",
        tokens_window: int | None = 1200,
        parent_id: str | None = None,
        agent_name: str | None = None,
        at: datetime | None = None,
    ) -> None:
        self.session_id = session_id
        self.age_s = age_s
        self.cwd = cwd
        self.title = title
        self.turn = turn
        self.gate = gate
        self.model = model
        self.tokens_window = tokens_window
        self.parent_id = parent_id
        self.agent_name = agent_name
        #: A fixed activity time; when unset the session is ``age_s`` old at every build.
        self.at = at

    def active_at(self, now: datetime) -> datetime:
        return self.at if self.at is not None else now - timedelta(seconds=self.age_s)


class FakeHarness:
    """A well-behaved in-memory harness plugin (register it with ``Registry.add``)."""

    def __init__(self, key: str = "fake", sessions: list[FakeSession] | None = None, label: str | None = None) -> None:
        self.key = key
        self.label = label or f"Fake {key}"
        self.sessions = {s.session_id: s for s in (sessions or [])}
        self.__name__ = f"fake:{key}"

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key=self.key, label=self.label, reports_waits=True)

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        refs = tuple(
            SessionRef(
                harness=self.key,
                session_id=s.session_id,
                path=f"/fake/{s.session_id}",
                location="/fake",
                modified_at=s.active_at(ctx.now),
            )
            for s in self.sessions.values()
        )
        return Discovery(locations=(StoreLocation(path="/fake", status="present"),), sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        s = self.sessions[ref.session_id]
        at = s.active_at(ctx.now)
        turn = TurnEvidence(state=s.turn, started_at=at if s.turn == "open" else None)  # type: ignore[arg-type]
        return SessionReading(
            ref=ref,
            title=s.title,
            cwd=s.cwd,
            last_active_at=at,
            started_at=at,
            turn=turn,
            parent_id=s.parent_id,
            agent_name=s.agent_name,
        )

    @hookimpl
    def gate_state(self, reading: SessionReading, ctx: HarnessContext) -> Gate | None:
        return self.sessions[reading.ref.session_id].gate

    @hookimpl
    def model(self, reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
        m = self.sessions[reading.ref.session_id].model
        return ModelInfo(id=m) if m else None

    @hookimpl
    def usage(self, reading: SessionReading, ctx: HarnessContext) -> Usage | None:
        return Usage(output_tokens_window=self.sessions[reading.ref.session_id].tokens_window)


class BrokenDiscover(FakeHarness):
    """Raises an unexpected exception from ``discover``."""

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        raise RuntimeError("discover exploded")


class RaisingRead(FakeHarness):
    """Raises a :class:`HarnessError` reading every session."""

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        raise HarnessError("store is locked")


class WrongType(FakeHarness):
    """Returns a dict where a model is expected."""

    @hookimpl
    def model(self, reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
        return {"id": "not-a-model"}  # type: ignore[return-value]
