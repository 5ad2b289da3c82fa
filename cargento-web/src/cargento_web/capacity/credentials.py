"""Reading a vendor credential exactly where its harness keeps it, and nowhere else.

Claude Code keeps its OAuth login in the macOS Keychain (generic password, service
``Claude Code-credentials``) and, elsewhere, in ``.credentials.json`` in its config directory
(``$CLAUDE_CONFIG_DIR``, else ``~/.claude``). The Cursor CLI keeps its session token in the
macOS Keychain (service ``cursor-access-token``); where it keeps it elsewhere is unverified, so
nothing is read there. A credential is only ever read: never refreshed, written, logged or
served. :class:`Credential` hides its value from ``repr``/``str`` so it cannot reach a log or
an exception message by accident, and every problem is a fixed sentence that quotes nothing
read from the source.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import attrs

__all__ = [
    "CLAUDE_KEYCHAIN_SERVICE",
    "CURSOR_KEYCHAIN_SERVICE",
    "KEYCHAIN_TIMEOUT_S",
    "Credential",
    "CredentialProblem",
    "claude_credential",
    "claude_credentials_file",
    "cursor_credential",
]

CLAUDE_KEYCHAIN_SERVICE = "Claude Code-credentials"
CURSOR_KEYCHAIN_SERVICE = "cursor-access-token"
#: The first Keychain read can raise a permission prompt; cutting it short reads as a denial.
KEYCHAIN_TIMEOUT_S = 120.0
#: The largest credential document read.
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


@attrs.frozen(kw_only=True)
class CredentialProblem:
    """Why no credential was read: ``missing``, ``unreadable``, ``expired`` or ``unsupported``."""

    kind: str
    text: str


def _keychain(service: str, security: str) -> str | CredentialProblem:
    try:
        done = subprocess.run(
            [security, "find-generic-password", "-s", service, "-w"],
            capture_output=True,
            timeout=KEYCHAIN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CredentialProblem(kind="unreadable", text="the Keychain did not answer in time")
    except OSError as exc:
        return CredentialProblem(kind="unreadable", text=f"the Keychain could not be asked ({type(exc).__name__})")
    if done.returncode != 0:
        return CredentialProblem(kind="missing", text="the Keychain holds no such item, or the read was denied")
    value = done.stdout[:CREDENTIAL_LIMIT].decode("utf-8", "replace").strip()
    if not value:
        return CredentialProblem(kind="missing", text="the Keychain item is empty")
    return value


def claude_credentials_file(env: Mapping[str, str], home: Path) -> Path:
    """``.credentials.json`` in Claude Code's config directory."""
    configured = env.get("CLAUDE_CONFIG_DIR", "").strip()
    root = Path(configured).expanduser() if configured else home / ".claude"
    return root / ".credentials.json"


def _claude_token(text: str, now: datetime) -> Credential | CredentialProblem:
    try:
        doc = json.loads(text)
    except ValueError:
        return CredentialProblem(kind="unreadable", text="Claude Code's credential is not JSON")
    login = doc.get("claudeAiOauth") if isinstance(doc, dict) else None
    token = login.get("accessToken") if isinstance(login, dict) else None
    if not isinstance(token, str) or not token.strip():
        return CredentialProblem(kind="missing", text="Claude Code's credential holds no OAuth login")
    expires = login.get("expiresAt") if isinstance(login, dict) else None
    expired = (
        isinstance(expires, int | float)
        and not isinstance(expires, bool)
        and 0 < expires < 10**14
        and datetime.fromtimestamp(float(expires) / 1000.0, UTC) <= now
    )
    if expired:
        return CredentialProblem(kind="expired", text="Claude Code's login has expired: sign in again in Claude Code")
    return Credential(token.strip())


def claude_credential(
    *, env: Mapping[str, str], home: Path, platform: str, now: datetime, security: str = SECURITY
) -> Credential | CredentialProblem:
    """Claude Code's OAuth access token, as Claude Code stores it on *platform*."""
    if platform == "darwin":
        found = _keychain(CLAUDE_KEYCHAIN_SERVICE, security)
        if isinstance(found, CredentialProblem):
            return found
        return _claude_token(found, now)
    path = claude_credentials_file(env, home)
    try:
        with path.open("rb") as f:
            data = f.read(CREDENTIAL_LIMIT + 1)
    except FileNotFoundError:
        return CredentialProblem(kind="missing", text="Claude Code keeps no credentials file here (not signed in?)")
    except OSError as exc:
        return CredentialProblem(
            kind="unreadable", text=f"Claude Code's credentials file is unreadable ({type(exc).__name__})"
        )
    if len(data) > CREDENTIAL_LIMIT:
        return CredentialProblem(kind="unreadable", text="Claude Code's credentials file is larger than any login")
    return _claude_token(data.decode("utf-8", "replace"), now)


def cursor_credential(*, platform: str, security: str = SECURITY) -> Credential | CredentialProblem:
    """The Cursor CLI's session token: macOS Keychain only."""
    if platform != "darwin":
        return CredentialProblem(
            kind="unsupported",
            text="Cursor's usage is read on macOS only (where else it keeps its token is unverified)",
        )
    found = _keychain(CURSOR_KEYCHAIN_SERVICE, security)
    return found if isinstance(found, CredentialProblem) else Credential(found)
