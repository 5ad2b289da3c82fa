"""``teams/<team>/config.json``: the roster of members a lead session has dispatched.

A member is listed the moment it is spawned, before it writes a transcript byte, so a member
with no transcript anywhere, registered longer than a healthy agent takes to start, is
parked (typically on a startup permission prompt) and the lead session needs input. The
roster is not a heartbeat: ``isActive: false`` may only confirm that a member stopped. A
team folder without ``config.json`` (an older layout) is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento.readers import read_json_object
from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["START_GRACE_S", "Member", "Roster", "parse_roster", "unstarted"]

#: How long a healthy member takes at most to write its first transcript record.
START_GRACE_S = 60.0
_MAX_BYTES = 512 * 1024
_MAX_MEMBERS = 200


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Member:
    """One roster member other than the lead."""

    name: str
    agent_type: str | None = None
    joined_at: datetime | None = None
    #: ``False`` only when the roster says the member stopped (2.1.259+).
    is_active: bool | None = None


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Roster:
    """One team's roster."""

    team: str
    path: str
    lead_session_id: str | None
    members: tuple[Member, ...]
    #: ``size:mtime_ns`` of the config file.
    stamp: str


def parse_roster(path: Path) -> Roster | None:
    """Parse one ``config.json``; ``None`` when it is missing or not a roster."""
    try:
        st = path.stat()
    except OSError:
        return None
    data = read_json_object(path, max_bytes=_MAX_BYTES)
    if data is None:
        return None
    team = data.get("name")
    team = team if isinstance(team, str) and team else path.parent.name
    lead_id = data.get("leadAgentId")
    lead_session = data.get("leadSessionId")
    raw = data.get("members")
    members: list[Member] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict) or len(members) >= _MAX_MEMBERS:
            continue
        name = item.get("name")
        if not isinstance(name, str) or not name:
            continue
        agent_type = item.get("agentType")
        if item.get("agentId") == lead_id or agent_type == "team-lead" or name == "team-lead":
            continue
        active = item.get("isActive")
        members.append(
            Member(
                name=name,
                agent_type=agent_type if isinstance(agent_type, str) else None,
                joined_at=parse_ts(item.get("joinedAt")),
                is_active=active if isinstance(active, bool) else None,
            )
        )
    return Roster(
        team=team,
        path=str(path),
        lead_session_id=lead_session if isinstance(lead_session, str) and lead_session else None,
        members=tuple(members),
        stamp=f"{st.st_size}:{st.st_mtime_ns}",
    )


def unstarted(roster: Roster, started: Iterable[str], now: datetime) -> list[Member]:
    """Members past the start grace with no transcript anywhere (names in *started* have one)."""
    have = set(started)
    out = []
    for member in roster.members:
        if member.name in have or member.is_active is False or member.joined_at is None:
            continue
        if now - member.joined_at >= timedelta(seconds=START_GRACE_S):
            out.append(member)
    return out
