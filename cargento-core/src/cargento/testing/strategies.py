"""Hypothesis strategies for the core models and for damaged store bytes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from cargento.models import (
    Gate,
    Instruction,
    ModelInfo,
    RateLimit,
    SessionReading,
    SessionRef,
    Subagent,
    Task,
    TurnEvidence,
    Usage,
)

__all__ = [
    "damaged",
    "gates",
    "model_infos",
    "readings",
    "refs",
    "tasks",
    "usages",
    "utc_datetimes",
]

_text = st.text(min_size=0, max_size=40)
_ids = st.text(alphabet="0123456789abcdef-", min_size=1, max_size=36)


def utc_datetimes() -> st.SearchStrategy[datetime]:
    return st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)).map(
        lambda d: d.replace(microsecond=(d.microsecond // 1000) * 1000)
    )


def refs(harness: str = "fake") -> st.SearchStrategy[SessionRef]:
    return st.builds(
        SessionRef,
        harness=st.just(harness),
        session_id=_ids,
        path=_text,
        location=_text,
        modified_at=st.none() | utc_datetimes(),
        fingerprint=st.none() | _text,
    )


def tasks() -> st.SearchStrategy[Task]:
    return st.builds(
        Task,
        subject=_text,
        status=st.sampled_from(["pending", "in_progress", "completed"]),
        active_form=st.none() | _text,
        id=st.none() | _ids,
        created_at=st.none() | utc_datetimes(),
        updated_at=st.none() | utc_datetimes(),
    )


def gates() -> st.SearchStrategy[Gate]:
    return st.builds(
        Gate,
        kind=st.sampled_from(["permission", "question", "plan", "command", "url"]),
        text=st.none() | _text,
        since=st.none() | utc_datetimes(),
        source=_text,
    )


def model_infos() -> st.SearchStrategy[ModelInfo]:
    return st.builds(ModelInfo, id=_text.filter(bool), display=st.none() | _text, authority=st.none() | _text)


def usages() -> st.SearchStrategy[Usage]:
    return st.builds(
        Usage,
        output_tokens_window=st.none() | st.integers(0, 10**9),
        output_tokens_total=st.none() | st.integers(0, 10**12),
        rate_limits=st.lists(
            st.builds(
                RateLimit,
                name=_text,
                used_percent=st.floats(0, 100),
                window_minutes=st.none() | st.integers(1, 100000),
                resets_at=st.none() | utc_datetimes(),
            ),
            max_size=3,
        ).map(tuple),
        ai_units=st.none() | st.floats(0, 1e6),
    )


def readings(harness: str = "fake") -> st.SearchStrategy[SessionReading]:
    return st.builds(
        SessionReading,
        ref=refs(harness),
        title=st.none() | _text,
        cwd=st.none() | _text,
        last_active_at=st.none() | utc_datetimes(),
        turn=st.builds(
            TurnEvidence,
            state=st.sampled_from(["open", "ended", "unknown"]),
            started_at=st.none() | utc_datetimes(),
            completed_s=st.lists(st.floats(0, 1e5), max_size=5).map(tuple),
        ),
        tasks=st.lists(tasks(), max_size=4).map(tuple),
        subagents=st.lists(st.builds(Subagent, name=_text, running=st.booleans()), max_size=3).map(tuple),
        instruction=st.none() | st.builds(Instruction, text=_text, source=st.sampled_from(["prompt", "agent"])),
    )


def damaged(original: bytes) -> st.SearchStrategy[bytes]:
    """Truncated, garbage, half-written and spliced variants of a store file's bytes."""
    n = len(original)
    cut = st.integers(0, max(0, n))
    return st.one_of(
        cut.map(lambda i: original[:i]),
        st.binary(max_size=2048),
        st.tuples(cut, st.binary(min_size=1, max_size=64)).map(lambda t: original[: t[0]] + t[1]),
        st.tuples(cut, st.binary(min_size=1, max_size=64)).map(lambda t: original[: t[0]] + t[1] + original[t[0] :]),
        st.binary(min_size=1, max_size=64).map(lambda b: original + b),
        st.just(original + b'{"type": "user", "message": {"conte'),
        st.just(b"\x00" * min(n, 4096)),
    )


def recent(now: datetime, seconds: int = 86400) -> st.SearchStrategy[datetime]:
    return st.integers(0, seconds).map(lambda s: now - timedelta(seconds=s))
