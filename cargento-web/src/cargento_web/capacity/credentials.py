"""Reading a vendor login exactly where its harness keeps it, and nowhere else.

Where that is comes from the harness's plugin (its ``quota_endpoint``): a macOS Keychain
generic password on macOS, a file elsewhere, or a sentence saying why it cannot be read on
this platform. The login is only ever read: never refreshed, written, logged or served.
:class:`Credential` hides its value from ``repr``/``str`` and refuses to be pickled, so it
cannot reach a log or an exception message by accident, and every problem is a fixed sentence
that quotes nothing read from the source.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from typing import Any

import attrs
from cargento.models import QuotaEndpoint
from cargento.sharedmethods import shared_methods

__all__ = ["CREDENTIAL_LIMIT", "KEYCHAIN_TIMEOUT_S", "SECURITY", "Credential", "CredentialProblem", "read_credential"]

#: The first Keychain read can raise a permission prompt; cutting it short reads as a denial.
KEYCHAIN_TIMEOUT_S = 120.0
#: The largest stored login read.
CREDENTIAL_LIMIT = 64 * 1024
SECURITY = "/usr/bin/security"


class Credential:
    """A bearer token, held so that it never prints."""

    __slots__ = ("_token",)

    def __init__(self, token: str) -> None:
        self._token = token

    def authorization(self) -> str:
        return f"Bearer {self._token}"

    def __repr__(self) -> str:
        return "Credential(<withheld>)"

    __str__ = __repr__

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a credential is never serialised")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class CredentialProblem:
    """Why no login was read: ``missing``, ``unreadable``, ``expired`` or ``unsupported``."""

    kind: str
    text: str


def _keychain(service: str, security: str, label: str) -> str | CredentialProblem:
    try:
        done = subprocess.run(
            [security, "find-generic-password", "-s", service, "-w"],
            capture_output=True,
            timeout=KEYCHAIN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CredentialProblem(kind="unreadable", text=f"the Keychain did not answer in time for {label}'s login")
    except OSError as exc:
        return CredentialProblem(kind="unreadable", text=f"the Keychain could not be asked ({type(exc).__name__})")
    if done.returncode != 0:
        return CredentialProblem(
            kind="missing", text=f"the Keychain holds no {label} login here, or the read was denied (not signed in?)"
        )
    return done.stdout[: CREDENTIAL_LIMIT + 1].decode("utf-8", "replace")


def _file(endpoint: QuotaEndpoint, label: str) -> str | CredentialProblem:
    assert endpoint.credential_file is not None
    try:
        with endpoint.credential_file.open("rb") as f:
            data = f.read(CREDENTIAL_LIMIT + 1)
    except FileNotFoundError:
        return CredentialProblem(kind="missing", text=f"{label} keeps no login file here (not signed in?)")
    except OSError as exc:
        return CredentialProblem(kind="unreadable", text=f"{label}'s login file is unreadable ({type(exc).__name__})")
    return data.decode("utf-8", "replace")


def _field(doc: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def _token(text: str, endpoint: QuotaEndpoint, label: str, now: datetime) -> Credential | CredentialProblem:
    if len(text) > CREDENTIAL_LIMIT:
        return CredentialProblem(kind="unreadable", text=f"{label}'s stored login is larger than any login")
    if not endpoint.token_field:
        token = text.strip()
        return (
            Credential(token) if token else CredentialProblem(kind="missing", text=f"{label}'s stored login is empty")
        )
    try:
        doc = json.loads(text)
    except ValueError:
        return CredentialProblem(kind="unreadable", text=f"{label}'s stored login is not JSON")
    token = _field(doc, endpoint.token_field)
    if not isinstance(token, str) or not token.strip():
        return CredentialProblem(kind="missing", text=f"{label}'s stored login holds no token")
    expires = _field(doc, endpoint.expires_field) if endpoint.expires_field else None
    if (
        isinstance(expires, int | float)
        and not isinstance(expires, bool)
        and 0 < expires < 10**14
        and datetime.fromtimestamp(float(expires) / 1000.0, UTC) <= now
    ):
        return CredentialProblem(kind="expired", text=f"{label}'s login has expired: sign in again in {label}")
    return Credential(token.strip())


def read_credential(
    endpoint: QuotaEndpoint, *, label: str, platform: str, now: datetime, security: str = SECURITY
) -> Credential | CredentialProblem:
    """The login *endpoint* says its harness keeps on *platform*, read once."""
    if endpoint.unavailable is not None:
        return CredentialProblem(kind="unsupported", text=endpoint.unavailable)
    if platform == "darwin" and endpoint.keychain_service:
        found = _keychain(endpoint.keychain_service, security, label)
    elif endpoint.credential_file is not None:
        found = _file(endpoint, label)
    else:
        return CredentialProblem(
            kind="unsupported", text=f"{label} keeps no login this dashboard can read on this platform"
        )
    return found if isinstance(found, CredentialProblem) else _token(found, endpoint, label, now)
