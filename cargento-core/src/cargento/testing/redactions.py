"""Every string handed to :func:`cargento.redact.redact`, recorded, for a test of what is
redacted and how often (a string repeated across a document or a store is redacted once)."""

from __future__ import annotations

import pytest

from cargento import redact as redaction

__all__ = ["record_redactions"]


def record_redactions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts :func:`~cargento.redact.redact` is asked from now to the test's end, in order
    (its answers are the real ones). ``redact_tree`` and every module that calls
    ``cargento.redact.redact`` through the module are seen."""
    asked: list[str] = []
    real = redaction.redact

    def recording(text: str) -> str:
        asked.append(text)
        return real(text)

    monkeypatch.setattr(redaction, "redact", recording)
    return asked
