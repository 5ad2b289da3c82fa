"""Claude Code's usage endpoint: where its login is kept, and the reply read into windows
(the reply's shape is the one recorded in testdata/captures/claude/usage-endpoint-macos.jsonl)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from cargento.testing.testdata import captures_root
from cargento_harness_claude import plugin
from cargento_harness_claude.quota import KEYCHAIN_SERVICE, URL

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
REPLY = {
    "five_hour": {"utilization": 33.0, "resets_at": "2026-12-01T14:00:00.528743+00:00"},
    "seven_day": {"utilization": 13.0, "resets_at": "2026-12-05T00:59:59.951713+00:00"},
    "seven_day_opus": None,
    "seven_day_sonnet": {"utilization": 7.5, "resets_at": "2026-12-05T00:59:59+00:00"},
    "limits": [
        {"kind": "session", "percent": 33, "resets_at": "2026-12-01T14:00:00+00:00", "scope": None},
        {"kind": "weekly_all", "percent": 13, "resets_at": "2026-12-05T00:59:59+00:00", "scope": None},
        {"kind": "weekly_scoped", "percent": 41, "scope": {"model": {"display_name": "Opus", "id": None}}},
    ],
}


def test_the_endpoint_and_where_the_login_is_kept(tmp_path: Path) -> None:
    mac = plugin.quota_endpoint(env={}, home=tmp_path, platform="darwin")
    assert mac is not None and mac.url == URL and mac.method == "GET" and mac.keychain_service == KEYCHAIN_SERVICE
    assert ("anthropic-beta", "oauth-2025-04-20") in mac.headers
    linux = plugin.quota_endpoint(env={}, home=tmp_path, platform="linux")
    assert linux is not None and linux.credential_file == tmp_path / ".claude" / ".credentials.json"
    assert linux.token_field == ("claudeAiOauth", "accessToken") and linux.expires_field == (
        "claudeAiOauth",
        "expiresAt",
    )
    moved = plugin.quota_endpoint(env={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}, home=tmp_path, platform="linux")
    assert moved is not None and moved.credential_file == tmp_path / "cfg" / ".credentials.json"


def test_the_reply_keeps_each_model_weekly_limit_separate() -> None:
    found = plugin.read_quota(document=REPLY, source="reply", now=NOW)
    assert [(w.name, w.used_percent) for w in found] == [
        ("5h", 33.0),
        ("weekly", 13.0),
        ("weekly · Opus", 41.0),
        ("weekly · sonnet", 7.5),
    ]
    opus = found[2]
    assert opus.resets_at is None, "a scoped limit with no reset keeps none rather than borrowing one"
    assert found[0].window_s == 5 * 3600 and found[1].window_s == 7 * 86400
    assert plugin.read_quota(document=REPLY, source="pushed", now=NOW) == ()


def test_malformed_replies_read_no_window() -> None:
    for doc in ([1], "x", {}, {"five_hour": {"utilization": "lots"}}, {"limits": [{"kind": "weekly_scoped"}]}):
        assert plugin.read_quota(document=doc, source="reply", now=NOW) == ()


def test_the_recorded_reply_shape_is_the_one_read() -> None:
    """The capture reduces values to verdicts; its verdicts are what the reader relies on."""
    root = captures_root()
    assert root is not None, "the captures are part of the checkout (testdata/captures)"
    path = root / "claude" / "usage-endpoint-macos.jsonl"
    record = json.loads(path.read_text().splitlines()[0])
    assert record["endpoint"] == URL and record["betaHeader"] == "oauth-2025-04-20"
    assert {"five_hour", "seven_day", "limits"} <= set(record["topLevelKeys"])
    kinds = {e["kind"]: e for e in record["limits"]["perElementVerdicts"]}
    assert kinds["weekly_scoped"]["percentScale"] == "int 0..100", "percent, not a fraction"
    assert kinds["weekly_scoped"]["resetsAtTz"] == "absent"
    assert kinds["weekly_scoped"]["scopeModelDisplayNamePresent"] is True
