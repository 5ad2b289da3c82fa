"""Cursor's usage RPC: the macOS Keychain only, and a level in cents with no clock."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento_harness_cursor import plugin
from cargento_harness_cursor.quota import KEYCHAIN_SERVICE, URL

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_login_is_read_on_macos_only(tmp_path: Path) -> None:
    mac = plugin.quota_endpoint(env={}, home=tmp_path, platform="darwin")
    assert mac is not None and mac.url == URL and mac.method == "POST" and mac.body == b"{}"
    assert mac.keychain_service == KEYCHAIN_SERVICE and mac.credential_file is None
    for platform in ("linux", "win32"):
        other = plugin.quota_endpoint(env={}, home=tmp_path, platform=platform)
        assert other is not None and other.keychain_service is None and other.credential_file is None
        assert other.unavailable is not None and "macOS only" in other.unavailable


def test_spend_over_the_allowance_in_cents_is_a_level_with_no_clock() -> None:
    end = NOW + timedelta(days=9)
    reply = {
        "planUsage": {"totalSpend": 1500, "limit": 2000, "totalPercentUsed": 0.05},
        "billingCycleEnd": str(int(end.timestamp() * 1000)),
    }
    (w,) = plugin.read_quota(document=reply, source="reply", now=NOW)
    assert w.name == "monthly" and w.used_percent == 75.0 and w.window_s is None
    assert w.detail == "$15.00 of $20.00" and w.resets_at == end


def test_what_is_not_spend_against_an_allowance_reads_nothing() -> None:
    for plan in (
        {"totalSpend": 5, "limit": 0},
        {"totalSpend": math.inf, "limit": 5},
        {"totalSpend": 10**30, "limit": 1},
        {"totalSpend": "12abc", "limit": "2000"},
        {"limit": 2000},
    ):
        assert plugin.read_quota(document={"planUsage": plan}, source="reply", now=NOW) == ()
    assert plugin.read_quota(document={"planUsage": {"totalSpend": 1, "limit": 2}}, source="pushed", now=NOW) == ()
