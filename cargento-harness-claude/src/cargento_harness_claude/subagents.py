"""Subagents in the session-folder layout: ``<session>/subagents/agent-<id>.jsonl`` + ``.meta.json``.

Claude Code writes a subagent it runs (and, from 2.1.3xx, an in-process teammate) as a
sidechain transcript in the lead session's folder, with a sibling ``.meta.json`` naming it
(``name``, ``description``, ``agentType``) and, once done, ``finished: true``. A workflow
fan-out nests its agents one level deeper, in ``subagents/workflows/<run-id>/``.

An agent is running while its transcript is fresh (90 s) and neither the meta file says it
finished nor its own transcript records a turn end. One that went quiet stays listed, as no
longer running, for the display window.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import attrs
from cargento.cache import HarnessCache
from cargento.models import HarnessContext, Subagent
from cargento.rates import per_minute
from cargento.readers import entry_is_dir, read_json_object
from cargento.sharedmethods import shared_methods
from cargento.timestamps import newest_plausible

from cargento_harness_claude.transcript import Summary, follow

__all__ = ["RUNNING_WINDOW_S", "AgentFile", "Meta", "list_agents", "pill", "read_meta"]

RUNNING_WINDOW_S = 90.0
_MAX_META_BYTES = 64 * 1024
_MAX_AGENTS = 400


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Meta:
    """The fields of ``agent-<id>.meta.json`` this plugin reads."""

    name: str | None = None
    description: str | None = None
    agent_type: str | None = None
    model: str | None = None
    team_name: str | None = None
    finished: bool = False


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class AgentFile:
    """One subagent transcript found in a session folder."""

    path: str
    agent_id: str
    meta_path: str
    mtime: datetime
    #: ``size:mtime_ns`` of the transcript and of its meta file.
    stamp: str


def _agents_in(folder: Path, found: list[AgentFile]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith("agent-") and name.endswith(".jsonl")) or len(found) >= _MAX_AGENTS:
            continue
        meta_path = os.path.join(folder, name[: -len(".jsonl")] + ".meta.json")
        try:
            st = entry.stat()
        except OSError:
            continue
        try:
            mst = os.stat(meta_path)
            meta_stamp = f"{mst.st_size}:{mst.st_mtime_ns}"
        except OSError:
            meta_stamp = "-"
        found.append(
            AgentFile(
                path=entry.path,
                agent_id=name[len("agent-") : -len(".jsonl")],
                meta_path=meta_path,
                mtime=datetime.fromtimestamp(st.st_mtime, UTC),
                stamp=f"{st.st_size}:{st.st_mtime_ns}/{meta_stamp}",
            )
        )


def list_agents(session_dir: Path) -> list[AgentFile]:
    """The subagent transcripts of one session folder, workflow runs included."""
    found: list[AgentFile] = []
    base = session_dir / "subagents"
    _agents_in(base, found)
    try:
        runs = [e.path for e in os.scandir(base / "workflows") if entry_is_dir(e)]
    except OSError:
        runs = []
    for run in sorted(runs):
        _agents_in(Path(run), found)
    return found


def _text(data: dict[str, object], key: str) -> str | None:
    value = data.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


def read_meta(path: str) -> Meta:
    """Parse a ``.meta.json``; a missing or damaged one reads as empty."""
    data = read_json_object(path, max_bytes=_MAX_META_BYTES)
    if data is None:
        return Meta()
    return Meta(
        name=_text(data, "name"),
        description=_text(data, "description"),
        agent_type=_text(data, "agentType"),
        model=_text(data, "model"),
        team_name=_text(data, "teamName"),
        finished=data.get("finished") is True,
    )


def label(agent: AgentFile, meta: Meta) -> str:
    """The pill label: ``name``, else ``description``, else ``agentType``, else the id."""
    return meta.name or meta.description or meta.agent_type or agent.agent_id


def last_active(agent: AgentFile, summary: Summary | None, now: datetime) -> datetime | None:
    """The agent's newest activity: its newest record, else its transcript's mtime."""
    if summary is not None and summary.last_at is not None:
        return newest_plausible(now, summary.last_at)
    return newest_plausible(now, agent.mtime)


def summary_of(cache: HarnessCache, agent: AgentFile) -> Summary | None:
    """The agent transcript's summary, or ``None`` when it cannot be read."""
    try:
        return follow(cache, agent.path)
    except OSError:
        return None


def pill(
    agent: AgentFile, ctx: HarnessContext, *, spawned_by: str | None = None
) -> tuple[Subagent, Summary | None] | None:
    """The pill for one agent, or ``None`` once it is quiet beyond the display window."""
    summary = summary_of(ctx.cache, agent)
    meta = read_meta(agent.meta_path)
    last = last_active(agent, summary, ctx.now)
    if not ctx.in_window(last):
        return None
    fresh = last is not None and (ctx.now - last).total_seconds() <= RUNNING_WINDOW_S
    ended = summary is not None and summary.clock.state == "ended"
    running = fresh and not meta.finished and not ended
    rate = per_minute(summary.window_tokens(ctx.now)) if summary is not None else None
    return (
        Subagent(
            name=label(agent, meta),
            running=running,
            model=(summary.model if summary is not None else None) or meta.model,
            role=meta.agent_type,
            started_at=summary.first_at if summary is not None else None,
            last_active_at=last,
            output_tokens_per_min=rate,
            spawned_by=spawned_by,
        ),
        summary,
    )
