"""A vendor endpoint stood in for by httpx's MockTransport (no request leaves the machine), with
the endpoints and readers the harness plugins declare: every failure withheld and said, the
login read only where the plugin says its harness keeps it and never in an exception or the
log, and the five-minute floor."""

from __future__ import annotations

import json
import logging
import os
import pickle
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from cargento.plugins import load_registry
from cargento_harness_claude import plugin as claude
from cargento_harness_claude.quota import URL as CLAUDE_URL
from cargento_harness_cursor import plugin as cursor
from cargento_harness_cursor.quota import URL as CURSOR_URL
from cargento_web.capacity.credentials import Credential, CredentialProblem, read_credential
from cargento_web.capacity.extension import quota_reader
from cargento_web.capacity.poller import POLL_S, Source, VendorPoller
from cargento_web.capacity.vendors import Failure, Vendor, fetch

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TOKEN = "sk-ant-oat01-" + "Q" * 48
REGISTRY = load_registry(entry_points=False, extra=[("claude", claude), ("cursor", cursor)])
CLAUDE_REPLY = {
    "five_hour": {"utilization": 33.0, "resets_at": "2026-12-01T14:00:00.528743+00:00"},
    "seven_day": {"utilization": 13.0, "resets_at": "2026-12-05T00:59:59.951713+00:00"},
    "limits": [{"kind": "weekly_scoped", "percent": 41, "scope": {"model": {"display_name": "Opus", "id": None}}}],
}


def vendor(key: str, home: Path, platform: str = "linux") -> Vendor:
    plugin = {"claude": claude, "cursor": cursor}[key]
    endpoint = plugin.quota_endpoint(env={}, home=home, platform=platform)
    assert endpoint is not None
    label = plugin.harness_info().label
    return Vendor(
        harness=key,
        label=label,
        endpoint=endpoint,
        read=quota_reader(REGISTRY, key, "reply"),
        user_agent="cargento/test",
    )


def client_for(handler: object) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))  # type: ignore[arg-type]


def test_the_claude_request_carries_the_login_only_as_its_bearer_token(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=CLAUDE_REPLY)

    found = fetch(vendor("claude", tmp_path), Credential(TOKEN), client_for(handler), NOW)
    assert not isinstance(found, Failure)
    assert [(w.key, w.used_percent, w.source) for w in found] == [
        ("claude:5h", 33.0, "vendor"),
        ("claude:weekly", 13.0, "vendor"),
        ("claude:weekly · Opus", 41.0, "vendor"),
    ]
    (request,) = seen
    assert str(request.url) == CLAUDE_URL and request.method == "GET"
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert request.headers["anthropic-beta"] == "oauth-2025-04-20"


def test_the_cursor_request_is_a_post_of_an_empty_object(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and str(request.url) == CURSOR_URL and request.content == b"{}"
        return httpx.Response(200, json={"planUsage": {"totalSpend": 1500, "limit": 2000}})

    found = fetch(vendor("cursor", tmp_path, "darwin"), Credential("cursor-token"), client_for(handler), NOW)
    assert not isinstance(found, Failure)
    (w,) = found
    assert (w.key, w.used_percent, w.window_s, w.detail) == ("cursor:monthly", 75.0, None, "$15.00 of $20.00")


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
def test_every_failure_is_withheld_and_said_never_zero(handler: object, kind: str, tmp_path: Path) -> None:
    found = fetch(vendor("claude", tmp_path), Credential(TOKEN), client_for(handler), NOW)
    assert isinstance(found, Failure) and found.kind == kind
    assert TOKEN not in found.text and found.text


def test_the_credential_never_prints() -> None:
    held = Credential(TOKEN)
    assert TOKEN not in repr(held) and TOKEN not in str(held) and TOKEN not in f"{held!r} {held}"
    with pytest.raises(TypeError):
        pickle.dumps(held)


def read_claude(home: Path, platform: str = "linux", security: str = "/nonexistent") -> Credential | CredentialProblem:
    endpoint = claude.quota_endpoint(env={}, home=home, platform=platform)
    assert endpoint is not None
    return read_credential(endpoint, label="Claude Code", platform=platform, now=NOW, security=security)


def _write_claude_file(home: Path, *, expires_at: datetime, token: str = TOKEN) -> Path:
    path = home / ".claude" / ".credentials.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    login = {"claudeAiOauth": {"accessToken": token, "refreshToken": "r", "expiresAt": expires_at.timestamp() * 1000}}
    path.write_text(json.dumps(login))
    return path


def test_claude_credential_is_read_from_its_file_and_never_written(tmp_path: Path) -> None:
    path = _write_claude_file(tmp_path, expires_at=NOW + timedelta(hours=1))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    found = read_claude(tmp_path)
    assert isinstance(found, Credential) and found.authorization() == f"Bearer {TOKEN}"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_claude_credential_problems_are_said_without_the_token(tmp_path: Path) -> None:
    missing = read_claude(tmp_path)
    assert isinstance(missing, CredentialProblem) and missing.kind == "missing"
    _write_claude_file(tmp_path, expires_at=NOW - timedelta(minutes=1))
    expired = read_claude(tmp_path)
    assert isinstance(expired, CredentialProblem) and expired.kind == "expired" and TOKEN not in expired.text
    (tmp_path / ".claude" / ".credentials.json").write_text("{" + TOKEN)
    broken = read_claude(tmp_path)
    assert isinstance(broken, CredentialProblem) and broken.kind == "unreadable" and TOKEN not in broken.text


def fake_security(tmp_path: Path, items: dict[str, str]) -> str:
    """A stand-in for macOS's ``security`` that answers only for the services it holds."""
    script = tmp_path / f"security-{len(list(tmp_path.glob('security-*')))}"
    lines = []
    for n, (service, value) in enumerate(items.items()):
        held = tmp_path / f"{script.name}-item-{n}"
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
    expires = (NOW + timedelta(hours=1)).timestamp() * 1000
    login = json.dumps({"claudeAiOauth": {"accessToken": TOKEN, "expiresAt": expires}})
    security = fake_security(tmp_path, {"Claude Code-credentials": login})
    found = read_claude(tmp_path, "darwin", security)
    assert isinstance(found, Credential) and found.authorization() == f"Bearer {TOKEN}"
    mac_cursor = cursor.quota_endpoint(env={}, home=tmp_path, platform="darwin")
    assert mac_cursor is not None
    refused = read_credential(mac_cursor, label="Cursor CLI", platform="darwin", now=NOW, security=security)
    assert isinstance(refused, CredentialProblem) and refused.kind == "missing", "Claude's item is never Cursor's"
    linux_cursor = cursor.quota_endpoint(env={}, home=tmp_path, platform="linux")
    assert linux_cursor is not None
    unsupported = read_credential(linux_cursor, label="Cursor CLI", platform="linux", now=NOW, security=security)
    assert isinstance(unsupported, CredentialProblem) and unsupported.kind == "unsupported"
    both = fake_security(tmp_path, {"cursor-access-token": "cursor-secret-value\n"})
    held = read_credential(mac_cursor, label="Cursor CLI", platform="darwin", now=NOW, security=both)
    assert isinstance(held, Credential) and held.authorization() == "Bearer cursor-secret-value"
    assert os.access(both, os.X_OK)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


def test_poller_asks_each_vendor_at_most_once_per_five_minutes_and_never_logs_the_token(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
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
        [Source(vendor=vendor("claude", tmp_path), credential=credential)],
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
