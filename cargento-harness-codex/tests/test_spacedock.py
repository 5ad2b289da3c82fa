"""A Codex first officer: a zero-exit boot result wrapper earns the badge and the strip source;
a failed, non-integer or conversational boot does not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento.models import SessionReading
from cargento.testing import make_context
from cargento_harness_codex import plugin
from cargento_harness_codex.fixtures import CodexStore

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
SID = "01a22b67-0000-7000-8000-0000000000c1"
WF = "/w/app/docs/dev"
ENT = "/w/app/docs/dev/.state"


def _read(home: Path, now: datetime) -> SessionReading:
    ctx = make_context(home, now=now, window_s=None)
    [ref] = plugin.discover(ctx=ctx).sessions
    reading = plugin.read_session(ref=ref, ctx=ctx)
    assert reading is not None
    return reading


def test_a_zero_exit_boot_wrapper_makes_a_first_officer_cold_and_warm(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(SID, cwd="/w/app", at=T0)
    session.turn_start(T0)
    session.prompt("Run the workflow", T0)
    assert _read(tmp_path, T0 + timedelta(seconds=1)).role is None
    session.spacedock_boot(WF, ENT, T0 + timedelta(seconds=2), dispatchable=[{"slug": "t-1", "current": "ideation"}])
    warm = _read(tmp_path, T0 + timedelta(seconds=3))
    assert warm.role == "spacedock:first-officer"
    assert warm.spacedock is not None and warm.spacedock.workflow_dirs == (WF,)
    assert warm.spacedock.entity_dirs == (ENT,)
    assert [(d.slug, d.current, d.next) for d in warm.spacedock.dispatchable] == [("t-1", "ideation", None)]
    # A cold read (a fresh cache) walks the rollout backward and finds the same boot.
    cold = plugin.read_session(
        ref=plugin.discover(ctx=make_context(tmp_path, now=T0 + timedelta(seconds=4), window_s=None)).sessions[0],
        ctx=make_context(tmp_path, now=T0 + timedelta(seconds=4), window_s=None),
    )
    assert cold is not None and cold.spacedock == warm.spacedock and cold.role == "spacedock:first-officer"


@pytest.mark.parametrize("code", [1, True, "0", None])
def test_a_failed_or_untyped_exit_code_is_no_boot(tmp_path: Path, code: Any) -> None:
    session = CodexStore(tmp_path).session(SID, cwd="/w/app", at=T0)
    session.turn_start(T0)
    session.spacedock_boot(WF, ENT, T0 + timedelta(seconds=1), exit_code=code)
    reading = _read(tmp_path, T0 + timedelta(seconds=2))
    assert reading.role is None and reading.spacedock is None


def test_boot_json_from_another_command_or_the_conversation_is_no_boot(tmp_path: Path) -> None:
    session = CodexStore(tmp_path).session(SID, cwd="/w/app", at=T0)
    session.turn_start(T0)
    boot = json.dumps({"workflow_dir": WF, "entity_dir": ENT})
    session.prompt(boot, T0)
    call = session.tool("shell", T0 + timedelta(seconds=1), arguments={"command": ["cat", "boot.json"]})
    session.tool_output(call, T0 + timedelta(seconds=2), json.dumps({"output": boot, "metadata": {"exit_code": 0}}))
    bare = session.tool("shell", T0 + timedelta(seconds=3), arguments={"command": ["spacedock", "status", "--boot"]})
    session.tool_output(bare, T0 + timedelta(seconds=4), boot)  # not the fulfilled-result wrapper
    reading = _read(tmp_path, T0 + timedelta(seconds=5))
    assert reading.role is None and reading.spacedock is None
