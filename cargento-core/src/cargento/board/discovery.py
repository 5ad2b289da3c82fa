"""The read pass over one harness's discovered sessions, reusing whatever did not change.

A session is read again (``read_session``) only when its ``SessionRef.fingerprint`` moved, or,
when it has none, whenever its harness's store may have changed. Its ``gate_state`` and
``usage`` answers depend on the clock and are reused for at most :data:`DERIVED_REUSE_S` of
real time; its ``model`` answer is reused as long as the reading is the same object.
"""

from __future__ import annotations

import time

import attrs

from cargento.board.session_row import SessionKey, SessionRow
from cargento.models import Gate, HarnessContext, HarnessInfo, ModelInfo, SessionReading, SessionRef, Usage
from cargento.plugins import Fault, Registry
from cargento.sharedmethods import shared_methods
from cargento.sharedrepr import shared_repr

__all__ = ["DERIVED_REUSE_S", "ReadPass", "SessionReader"]

#: How long a clean session's clock-dependent hook answers (gate, usage) are reused.
DERIVED_REUSE_S = 1.0
#: The per-session hooks called after ``read_session``, and the row field each answer fills.
_ANSWER_HOOKS = (("gate_state", "gate"), ("model", "model"), ("usage", "usage"))


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _CachedReading:
    """A session's last reading and the fingerprint it was read at (``""`` when it had none)."""

    fingerprint: str
    reading: SessionReading | None


@shared_repr
@attrs.frozen(kw_only=True, repr=False, eq=False)
class _HookAnswers:
    """The per-session hook answers computed for one reading, and when (``time.monotonic``)."""

    reading: SessionReading
    at: float
    gate: Gate | None
    model: ModelInfo | None
    usage: Usage | None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class ReadPass:
    """What one harness's read pass found."""

    #: One row per session read, with its hook answers, in discovery order.
    rows: list[SessionRow]
    #: Sessions read before that this pass no longer saw; their caches are dropped.
    gone: list[SessionKey]


class SessionReader:
    """Reads sessions through a registry's plugins, keeping readings and hook answers between builds."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        # Per harness, by session id: a pass lets go of its own harness's sessions that are
        # gone by looking at that harness's alone (not at every session of the board).
        self._readings: dict[str, dict[str, _CachedReading]] = {}
        self._answers: dict[str, dict[str, _HookAnswers]] = {}

    def read(
        self,
        key: str,
        info: HarnessInfo,
        refs: tuple[SessionRef, ...],
        ctx: HarnessContext,
        all_sessions: bool,
        *,
        reuse: bool = False,
    ) -> ReadPass:
        """Read harness *key*'s sessions *refs* (those in the window unless *all_sessions*).

        *reuse* says the harness's store did not change since the last pass: a session with no
        fingerprint keeps its last reading. A session whose ``read_session`` faulted, or that
        read as ``None``, has no row; a per-session hook that faulted leaves its answer unset
        and its fault on the row.
        """
        registry = self.registry
        out: list[SessionRow] = []
        seen: set[str] = set()
        readings = self._readings.setdefault(key, {})
        answers = self._answers.setdefault(key, {})
        # Asked once a pass, not per session: the hooks this harness answers, and the moment
        # the reuse of a clean session's answers is judged by.
        hooks = [(hook, field) for hook, field in _ANSWER_HOOKS if registry.implements(key, hook)]
        tick = time.monotonic()
        for ref in refs:
            if ref.harness != key:
                registry.record_fault(
                    key, "discover", f"session {ref.session_id} carries harness {ref.harness!r}", kind="contract"
                )
                continue
            if not all_sessions and ref.modified_at is not None and not ctx.in_window(ref.modified_at):
                continue
            sid = ref.session_id
            seen.add(sid)
            cached = readings.get(sid)
            if cached is not None and (
                (reuse and not ref.fingerprint)
                or (ref.fingerprint is not None and cached.fingerprint == ref.fingerprint)
            ):
                reading = cached.reading
            else:
                result = registry.call(key, "read_session", ref=ref, ctx=ctx)
                if isinstance(result, Fault):
                    readings.pop(sid, None)
                    continue
                reading = result.value
                readings[sid] = _CachedReading(fingerprint=ref.fingerprint or "", reading=reading)
            if reading is None:
                continue
            memo = answers.get(sid)
            fresh = memo is not None and memo.reading is reading and tick - memo.at < DERIVED_REUSE_S
            if fresh:
                # The common case of a pass after one append: every other session's answers
                # stand, so its row is made whole, without a look at each hook.
                assert memo is not None
                out.append(SessionRow(info=info, reading=reading, gate=memo.gate, model=memo.model, usage=memo.usage))
                continue
            row = SessionRow(info=info, reading=reading)
            for hook, field in hooks:
                if memo is not None and memo.reading is reading and (fresh or hook == "model"):
                    setattr(row, field, getattr(memo, field))
                    continue
                got = registry.call(key, hook, reading=reading, ctx=ctx)
                if isinstance(got, Fault):
                    row.faults.append(f"{hook}: {got.message}")
                    continue
                setattr(row, field, got.value)
            if not row.faults:
                answers[sid] = _HookAnswers(reading=reading, at=tick, gate=row.gate, model=row.model, usage=row.usage)
            out.append(row)
        gone = [(key, sid) for sid in readings if sid not in seen]
        for _, sid in gone:
            del readings[sid]
            answers.pop(sid, None)
        return ReadPass(rows=out, gone=gone)
