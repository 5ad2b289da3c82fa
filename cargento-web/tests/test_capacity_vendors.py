"""The vendor endpoints stood in for by httpx's MockTransport (no request leaves the machine):
the replies Cargento reads, every failure withheld and said, the credential read only as the
harness stores it and never in an exception or the log, and the five-minute floor."""

from __future__ import annotations

import json
import logging
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from cargento_web.capacity.credentials import (
    Credential,
    CredentialProblem,
    claude_credential,
    claude_credentials_file,
    cursor_credential,
)
from cargento_web.capacity.poller import POLL_S, Source, VendorPoller
from cargento_web.capacity.vendors import (
    CLAUDE_USAGE_URL,
    CURSOR_USAGE_URL,
    Failure,
    claude_vendor,
    cursor_vendor,
    fetch,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TOKEN = "sk-ant-oat01-" + "Q" * 48
CLAUDE_REPLY = {
    "five_hour": {"utilization": 33.0, "resets_at": "2026-12-01T14:00:00.528743+00:00"},
    "seven_day": {"utilization": 13.0, "resets_at": "2026-12-05T00:59:59.951713+00:00"},
    "seven_day_opus": None,
    "limits": [
        {"kind": "session", "percent": 33, "resets_at": "2026-12-01T14:00:00+00:00", "scope": None},
        {"kind": "weekly_all", "percent": 13, "resets_at": "2026-12-05T00:59:59+00:00", "scope": None},
        {"kind": "weekly_scoped", "percent": 41, "scope": {"model": {"display_name": "Opus", "id": None}}},
    ],
}


def client_for(handler: object) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))  # type: ignore[arg-type]


def test_claude_reply_keeps_the_model_specific_weekly_limit_separate() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=CLAUDE_REPLY)

    found = fetch(claude_vendor("cargento/test"), Credential(TOKEN), client_for(handler), NOW)
    assert not isinstance(found, Failure)
    assert [(w.key, w.used_percent, w.window_s is not None) for w in found] == [
        ("claude:5h", 33.0, True),
        ("claude:weekly", 13.0, True),
        ("claude:weekly:Opus", 41.0, True),
    ]
    assert found[2].resets_at is None, "a scoped limit with no reset keeps none rather than borrowing one"
    (request,) = seen
    assert str(request.url) == CLAUDE_USAGE_URL and request.method == "GET"
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert request.headers["anthropic-beta"] == "oauth-2025-04-20"


def test_cursor_reply_is_a_level_in_cents_with_no_clock() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and str(request.url) == CURSOR_USAGE_URL and request.content == b"{}"
        end = int((NOW + timedelta(days=9)).timestamp() * 1000)
        return httpx.Response(
            200,
            json={
                "planUsage": {"totalSpend": 1500, "limit": 2000, "totalPercentUsed": 0.05},
                "billingCycleEnd": str(end),
            },
        )

    found = fetch(cursor_vendor("cargento/test"), Credential("cursor-token"), client_for(handler), NOW)
    assert not isinstance(found, Failure)
    (w,) = found
    assert w.used_percent == 75.0 and w.window_s is None and w.detail == "$15.00 of $20.00"
    assert w.resets_at == NOW + timedelta(days=9)


def _timeout(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


def _refused(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("refused", request=request)


@pytest.mark.parametrize(
    ("handler", "kind"),
    [
        (_timeout, "timeout"),
        (lambda r: httpx.Response(401, json={"error": "expired"}), "rejected"),
        (lambda r: httpx.Response(403, text="forbidden"), "rejected"),
        (lambda r: httpx.Response(200, text="<html>not json"), "malformed"),
        (lambda r: httpx.Response(200, json={"five_hour": {"utilization": "lots"}}), "malformed"),
        (lambda r: httpx.Response(200, json=[1, 2]), "malformed"),
        (lambda r: httpx.Response(200, content=b"{" + b" " * (300 * 1024) + b"}"), "malformed"),
        (lambda r: httpx.Response(500), "unavailable"),
        (lambda r: httpx.Response(429), "unavailable"),
        (_refused, "unavailable"),
    ],
)
def test_every_failure_is_withheld_and_said_never_zero(handler: object, kind: str) -> None:
    found = fetch(claude_vendor("cargento/test"), Credential(TOKEN), client_for(handler), NOW)
    assert isinstance(found, Failure) and found.kind == kind
    assert TOKEN not in found.text and found.text


def test_the_credential_never_prints() -> None:
    held = Credential(TOKEN)
    assert TOKEN not in repr(held) and TOKEN not in str(held) and TOKEN not in f"{held!r} {held}"
    with pytest.raises(TypeError):
        import pickle

        pickle.dumps(held)


def _write_claude_file(home: Path, *, expires_at: datetime, token: str = TOKEN) -> Path:
    path = claude_credentials_file({}, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {"claudeAiOauth": {"accessToken": token, "refreshToken": "r", "expiresAt": expires_at.timestamp() * 1000}}
        )
    )
    return path


def test_claude_credential_is_read_from_its_file_and_never_written(tmp_path: Path) -> None:
    path = _write_claude_file(tmp_path, expires_at=NOW + timedelta(hours=1))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    found = claude_credential(env={}, home=tmp_path, platform="linux", now=NOW)
    assert isinstance(found, Credential) and found.authorization() == f"Bearer {TOKEN}"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    relocated = tmp_path / "elsewhere"
    assert claude_credentials_file({"CLAUDE_CONFIG_DIR": str(relocated)}, tmp_path) == relocated / ".credentials.json"


def test_claude_credential_problems_are_said_without_the_token(tmp_path: Path) -> None:
    missing = claude_credential(env={}, home=tmp_path, platform="linux", now=NOW)
    assert isinstance(missing, CredentialProblem) and missing.kind == "missing"
    _write_claude_file(tmp_path, expires_at=NOW - timedelta(minutes=1))
    expired = claude_credential(env={}, home=tmp_path, platform="linux", now=NOW)
    assert isinstance(expired, CredentialProblem) and expired.kind == "expired" and TOKEN not in expired.text
    claude_credentials_file({}, tmp_path).write_text("{" + TOKEN)
    broken = claude_credential(env={}, home=tmp_path, platform="linux", now=NOW)
    assert isinstance(broken, CredentialProblem) and broken.kind == "unreadable" and TOKEN not in broken.text


def fake_security(tmp_path: Path, items: dict[str, str]) -> str:
    """A stand-in for macOS's ``security`` that answers only for the services it holds."""
    script = tmp_path / f"security-{len(list(tmp_path.glob('security-*')))}"
    lines = []
    for n, (service, value) in enumerate(items.items()):
        held = tmp_path / f"keychain-item-{len(list(tmp_path.glob('keychain-item-*')))}-{n}"
        held.write_text(value)
        lines.append(f'  "{service}") cat "{held}" ;;')
    cases = "\n".join(lines)
    script.write_text(
        "#!/bin/sh\n"
        '[ "$1" = find-generic-password ] && [ "$2" = -s ] && [ "$4" = -w ] || exit 2\n'
        f'case "$3" in\n{cases}\n  *) exit 44 ;;\nesac\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_keychain_reads_are_scoped_to_each_harness_service(tmp_path: Path) -> None:
    login = json.dumps(
        {"claudeAiOauth": {"accessToken": TOKEN, "expiresAt": (NOW + timedelta(hours=1)).timestamp() * 1000}}
    )
    security = fake_security(tmp_path, {"Claude Code-credentials": login})
    claude = claude_credential(env={}, home=tmp_path, platform="darwin", now=NOW, security=security)
    assert isinstance(claude, Credential) and claude.authorization() == f"Bearer {TOKEN}"
    cursor = cursor_credential(platform="darwin", security=security)
    assert isinstance(cursor, CredentialProblem) and cursor.kind == "missing", "Claude's item is never handed to Cursor"
    assert isinstance(cursor_credential(platform="linux", security=security), CredentialProblem)
    both = fake_security(tmp_path, {"cursor-access-token": "cursor-secret-value"})
    found = cursor_credential(platform="darwin", security=both)
    assert isinstance(found, Credential) and found.authorization() == "Bearer cursor-secret-value"
    assert os.access(both, os.X_OK)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def test_poller_asks_each_vendor_at_most_once_per_five_minutes_and_never_logs_the_token(
    caplog: pytest.LogCaptureFixture,
) -> None:
    asked: list[str] = []
    reads: list[datetime] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        raise RuntimeError(f"surprise carrying {request.headers['authorization']}")

    def credential(now: datetime) -> Credential:
        reads.append(now)
        return Credential(TOKEN)

    clock = Clock()
    changes: list[int] = []
    poller = VendorPoller(
        [Source(vendor=claude_vendor("cargento/test"), credential=credential)],
        clock=clock,
        client=lambda: client_for(handler),
        on_change=lambda: changes.append(1),
    )
    caplog.set_level(logging.DEBUG)
    assert poller.request() == ["claude"]
    poller.wait()
    for _ in range(5):
        assert poller.request() == []
    clock.now += timedelta(seconds=POLL_S - 1)
    assert poller.request() == []
    clock.now += timedelta(seconds=1)
    assert poller.request() == ["claude"]
    poller.wait()
    poller.close()
    assert len(asked) == 2 and len(reads) == 2 and len(changes) == 2
    state = poller.states()["claude"]
    assert state.failure is not None and state.failure.kind == "unavailable" and TOKEN not in state.failure.text
    assert TOKEN not in caplog.text and "RuntimeError" in caplog.text
