"""Reach nudges: one post to your phone or chat when a session needs you while you are away.

The feature of the specification's ``--reach-url`` / ``CARGENTO_REACH_URL`` /
``~/.cargento/reach_url`` and ``--no-reach``. :mod:`.target` resolves the URL and its shape
(an ntfy topic, or a Slack-compatible JSON webhook), :mod:`.nudge` words it (harness, title,
kind of wait; never a prompt, a command or a path), :mod:`.post` makes one bounded POST, and
:mod:`.lane` decides and delivers (away from the desk, cooldown, daily cap, one retry), each
delivery recorded in the deliveries store beside the desktop raises.

"Away" is how long no dashboard tab has been visible: ``CARGENTO_REACH_AWAY_MINUTES``
(default 5). A replay (``--as-of``) posts nothing: nobody waits on a moment in the past.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.reach.lane import ReachLane, ReachPolicy
from cargento_web.reach.target import ReachTarget, resolve_target
from cargento_web.runtime.presence import HEARTBEAT_S

__all__ = ["AWAY_VARIABLE", "ReachExtension", "create"]

log = logging.getLogger("cargento_web")

AWAY_VARIABLE = "CARGENTO_REACH_AWAY_MINUTES"


def _away_after(env: Mapping[str, str]) -> timedelta:
    text = env.get(AWAY_VARIABLE, "").strip()
    try:
        minutes = float(text) if text else 5.0
    except ValueError:
        log.warning("%s=%r is not a number of minutes; using 5", AWAY_VARIABLE, text)
        minutes = 5.0
    return timedelta(minutes=min(max(minutes, 0.0), 24 * 60))


class ReachExtension(Extension):
    name = "reach"

    def __init__(self, target: ReachTarget | None, reason: str, lane: ReachLane | None, policy: ReachPolicy) -> None:
        self.target = target
        self.reason = reason
        self.lane = lane
        self.policy = policy

    def page_config(self) -> Mapping[str, Any]:
        if self.target is None or self.lane is None:
            return {"enabled": False, "reason": self.reason}
        return {
            "enabled": True,
            "shape": self.target.shape,
            # The URL is a secret (anyone with an ntfy topic reads it): the host alone.
            "host": self.target.host,
            "source": self.target.source if self.target.source.startswith(("--", "CARGENTO")) else "reach_url file",
            "away_after_s": self.policy.away_after.total_seconds(),
            "cooldown_s": self.policy.cooldown.total_seconds(),
            "daily_cap": self.policy.daily_cap,
            "presence_heartbeat_s": HEARTBEAT_S,
        }

    def close(self) -> None:
        if self.lane is not None:
            self.lane.close()


def create(context: ExtensionContext) -> Extension | None:
    options = context.options
    if options.no_reach:
        return None  # no URL is resolved and nothing is posted
    hub: Any = context.hub
    policy = ReachPolicy(away_after=_away_after(context.env))
    if hub is None or not hasattr(hub, "alerts"):
        return ReachExtension(None, "no event hub runs in this dashboard", None, policy)
    if options.as_of is not None:
        return ReachExtension(None, "a replay (--as-of) posts no reach nudge", None, policy)
    target, reason = resolve_target(options.reach_url, context.env)
    if target is None:
        return ReachExtension(None, reason, None, policy)

    def namer(harness: str, session_id: str) -> tuple[str, str] | None:
        board = context.latest_board()
        if board is None:
            return None
        for s in board.sessions:
            if s.harness == harness and s.session_id == session_id:
                return s.harness_label, s.title or s.display_id
        return None

    lane = ReachLane(target, hub.deliveries, hub.presence, namer, clock=hub.clock, policy=policy, note=hub.alerts.note)
    hub.alerts.listen(lane.on_raise)
    return ReachExtension(target, reason, lane, policy)
