"""The quota hooks through the registry: one plugin's endpoint and reading, guarded like every
hook (a wrong return type is a contract fault, a raise is a fault, never an exception)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cargento import hookimpl
from cargento.models import QuotaEndpoint, QuotaWindow
from cargento.plugins import Fault, Ok, load_registry
from cargento.testing.fakes import FakeHarness

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Quoted(FakeHarness):
    """A harness whose vendor publishes an allowance."""

    @hookimpl
    def quota_endpoint(self, env: Mapping[str, str], home: Path, platform: str) -> QuotaEndpoint | None:
        if platform == "darwin":
            return QuotaEndpoint(method="GET", url="https://vendor.example/usage", keychain_service="vendor-login")
        return QuotaEndpoint(
            method="GET", url="https://vendor.example/usage", credential_file=home / ".vendor" / "login"
        )

    @hookimpl
    def read_quota(self, document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:
        if source != "reply" or not isinstance(document, dict) or not isinstance(document.get("used"), int):
            return ()
        return (QuotaWindow(name="5h", used_percent=float(document["used"]), window_s=18000.0),)


class Broken(FakeHarness):
    @hookimpl
    def quota_endpoint(self, env: Mapping[str, str], home: Path, platform: str) -> object:
        return "https://vendor.example/usage"

    @hookimpl
    def read_quota(self, document: Any, source: str, now: datetime) -> tuple[QuotaWindow, ...]:
        raise KeyError("used")


def test_hook_quota_endpoint_says_where_each_platform_keeps_the_login(tmp_path: Path) -> None:
    registry = load_registry(entry_points=False, extra=[("quoted", Quoted("quoted")), ("plain", FakeHarness("plain"))])
    mac = registry.call("quoted", "quota_endpoint", env={}, home=tmp_path, platform="darwin")
    assert isinstance(mac, Ok) and isinstance(mac.value, QuotaEndpoint) and mac.value.keychain_service == "vendor-login"
    linux = registry.call("quoted", "quota_endpoint", env={}, home=tmp_path, platform="linux")
    assert isinstance(linux, Ok) and linux.value.credential_file == tmp_path / ".vendor" / "login"
    assert not registry.implements("plain", "quota_endpoint")
    assert registry.implements("quoted", "quota_endpoint")


def test_hook_quota_endpoint_of_the_wrong_type_is_a_contract_fault(tmp_path: Path) -> None:
    registry = load_registry(entry_points=False, extra=[("broken", Broken("broken"))])
    found = registry.call("broken", "quota_endpoint", env={}, home=tmp_path, platform="linux")
    assert isinstance(found, Fault) and found.kind == "contract"


def test_hook_read_quota_reads_a_reply_and_a_fault_is_never_raised() -> None:
    registry = load_registry(entry_points=False, extra=[("quoted", Quoted("quoted")), ("broken", Broken("broken"))])
    read = registry.call("quoted", "read_quota", document={"used": 40}, source="reply", now=NOW)
    assert isinstance(read, Ok) and read.value == (QuotaWindow(name="5h", used_percent=40.0, window_s=18000.0),)
    nothing = registry.call("quoted", "read_quota", document=[1], source="pushed", now=NOW)
    assert isinstance(nothing, Ok) and nothing.value == ()
    raised = registry.call("broken", "read_quota", document={}, source="reply", now=NOW)
    assert isinstance(raised, Fault) and raised.kind == "bug"
