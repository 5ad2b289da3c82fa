"""The forwarder's side of the health challenge: a fresh nonce and the check of the answer.

The answer is :func:`cargento.statedir.health_proof` (HMAC-SHA256 keyed by this run's
capability). :mod:`hmac` and :mod:`hashlib` load OpenSSL, which costs a forwarder more than
the exchange itself, so the HMAC here is built (RFC 2104) on the interpreter's built-in SHA-256
when it has one, and on :mod:`hashlib` otherwise; a test holds it to ``health_proof``.
"""

from __future__ import annotations

import os

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["challenge", "expected_proof", "same"]

_BLOCK = 64  # SHA-256's block size in bytes
_INNER = bytes(x ^ 0x36 for x in range(256))
_OUTER = bytes(x ^ 0x5C for x in range(256))
_LABEL = b"cargento-health\0"


def _sha256() -> Callable[[bytes], Any]:
    for name in ("_sha2", "_sha256"):  # Python 3.12+, then 3.11
        try:
            module = __import__(name)
        except ImportError:
            continue
        return module.sha256  # type: ignore[no-any-return]
    import hashlib  # pragma: no cover - a build without the built-in hashes

    return hashlib.sha256  # pragma: no cover


def challenge() -> str:
    """A fresh nonce for ``/api/health``: 48 hex digits (192 random bits)."""
    return os.urandom(24).hex()


def expected_proof(capability: str, nonce: str) -> str:
    """What the dashboard holding *capability* answers to *nonce* (hex HMAC-SHA256)."""
    sha256 = _sha256()
    key = capability.encode()
    if len(key) > _BLOCK:
        key = sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = sha256(key.translate(_INNER) + _LABEL + nonce.encode()).digest()
    return str(sha256(key.translate(_OUTER) + inner).hexdigest())


def same(a: str, b: str) -> bool:
    """*a* equals *b*, compared in time that does not depend on where they differ."""
    try:
        from _operator import _compare_digest as compare
    except ImportError:  # pragma: no cover - an interpreter without it
        from hmac import compare_digest as compare  # type: ignore[no-redef]
    return bool(compare(a.encode(), b.encode()))
