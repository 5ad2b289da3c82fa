"""Antigravity's pushed quota block: one window per slot, the worse family's, and the demo's
status line pushing it (at start and at a rollover only)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento.testing.homes import make_context
from cargento_harness_antigravity import plugin
from cargento_harness_antigravity.demo import AntigravityDemo, quota_block

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_worse_family_wins_each_slot() -> None:
    block = {
        "gemini-5h": {"remaining_fraction": 0.82, "reset_time": "2026-12-01T15:00:00Z"},
        "3p-5h": {"remaining_fraction": 0.4, "reset_time": "2026-12-01T15:30:00Z"},
        "gemini-weekly": {"remaining_fraction": 0.9, "reset_time": "2026-12-05T00:00:00Z"},
        "bad": {"remaining_fraction": 0.0},
        "x-weekly": {"remaining_fraction": 7},
    }
    five, weekly = plugin.read_quota(document=block, source="pushed", now=NOW)
    assert (five.name, round(five.used_percent, 6), five.window_s) == ("5h", 60.0, 5 * 3600)
    assert five.resets_at == datetime(2026, 12, 1, 15, 30, tzinfo=UTC) and "third-party" in (five.detail or "")
    assert (weekly.name, round(weekly.used_percent, 6)) == ("weekly", 10.0) and "Gemini" in (weekly.detail or "")
    assert plugin.read_quota(document=block, source="reply", now=NOW) == ()
    assert (
        plugin.read_quota(document={"gemini-5h": {"remaining_fraction": float("nan")}}, source="pushed", now=NOW) == ()
    )


def test_the_demo_status_line_pushes_its_quota_at_start_and_at_a_rollover(tmp_path: Path) -> None:
    home = tmp_path
    ctx = make_context(home, now=NOW)
    sim = AntigravityDemo(home, ctx)
    sim.step(NOW)
    (push,) = sim.drain_events()
    assert push == {"hook_event_name": "StatusLine", "quota": quota_block(NOW, NOW)}
    sim.step(NOW + timedelta(minutes=30))
    assert sim.drain_events() == [], "nothing moved, nothing pushed"
    sim.step(NOW + timedelta(hours=1, seconds=1))
    (rolled,) = sim.drain_events()
    assert rolled["quota"]["gemini-5h"]["reset_time"] == "2026-12-01T18:00:00Z"
    sim.close()
