"""The demo's Spacedock workflow: a first officer and its ensigns moving entities through stages.

Under the demo home, ``work/fleet/ops`` holds a workflow (``docs/plans/README.md`` whose
frontmatter declares the ordered stages, and one state file per entity under
``docs/plans/.state`` whose frontmatter ``status`` names its stage). A Claude Code first
officer (``agentSetting: spacedock:first-officer``) ran ``spacedock status --boot --json`` as a
``Bash`` command, so its transcript carries the boot output; an ensign
(``spacedock:ensign``) is dispatched on one entity at a time. Every :data:`CYCLE_S` seconds
the ensign moves its entity to the next stage (rewriting the state file), and when it reaches
the last stage the first officer dispatches the ensign on the next entity. The schedule runs on
core's :class:`cargento.demo.Schedule`, so the writes follow from the start time and the seed.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from cargento.demo import Action, Schedule, require_inside, seeded_uuid
from cargento.models import HarnessContext

from cargento_harness_claude import locations
from cargento_harness_claude.fixtures import ClaudeStore, Session

__all__ = ["CYCLE_S", "ENTITIES", "STAGES", "SpacedockDemo"]

STAGES = ("backlog", "ideation", "implementation", "validation", "done")
ENTITIES = ("rate-limit-api", "audit-log", "search-reindex", "retry-webhooks")
#: One stage move, in seconds.
CYCLE_S = 40.0


class SpacedockDemo:
    def __init__(self, home: Path, ctx: HarnessContext, *, seed: int = 2026) -> None:
        root = locations.store(ctx).root
        require_inside(root, home, "Claude Code")
        self.store = ClaudeStore(home, root=root)
        self.cwd = home / "work" / "fleet" / "ops"
        self.workflow = self.cwd / "docs" / "plans"
        self.states = self.workflow / ".state"
        self.states.mkdir(parents=True, exist_ok=True)
        rng = random.Random(f"claude-spacedock-demo:{seed}")
        self._readme()
        self.status = {
            slug: stage
            for slug, stage in zip(ENTITIES, ("implementation", "ideation", "backlog", "backlog"), strict=True)
        }
        for slug in ENTITIES:
            self._write_state(slug)
        start = ctx.now
        self.officer: Session = self.store.session(
            seeded_uuid(rng), cwd=str(self.cwd), agent_setting="spacedock:first-officer"
        )
        self.officer.prompt("Run the plans workflow until the backlog is empty", start - timedelta(minutes=6))
        dispatchable = [{"slug": s, "current": self.status[s], "next": _next(self.status[s]) or ""} for s in ENTITIES]
        call = self.officer.tool(
            "Bash",
            start - timedelta(minutes=6) + timedelta(seconds=4),
            input={"command": f"spacedock status --boot --json --workflow-dir {self.workflow}"},
        )
        boot = {
            "workflow_dir": str(self.workflow),
            "entity_dir": str(self.states),
            "state_backend": "split-root",
            "dispatchable": dispatchable,
        }
        self.officer.result(
            call, start - timedelta(minutes=6) + timedelta(seconds=5), output=json.dumps(boot, indent=2)
        )
        self.ensign_id = seeded_uuid(rng)
        self.held = ENTITIES[0]
        self.ensign: Session = self._dispatch(self.held, start - timedelta(seconds=20))
        self.schedule = Schedule(
            start + timedelta(seconds=10),
            CYCLE_S,
            self._plan,
            seed=f"claude-spacedock-demo:{seed}",
            tolerate=(OSError,),
        )

    def _readme(self) -> None:
        lines = ["---", "commissioned-by: spacedock@0.9", "entity-type: plan", "stages:", "  states:"]
        lines += [f"    - name: {s}" for s in STAGES]
        lines += ["---", "", "# Plans", "", "Each plan moves from backlog to done; an ensign takes one at a time."]
        (self.workflow / "README.md").write_text("\n".join(lines) + "\n")

    def _write_state(self, slug: str) -> None:
        title = slug.replace("-", " ").capitalize()
        text = f"---\ntitle: {title}\nstatus: {self.status[slug]}\n---\n\nThe plan for {title.lower()}.\n"
        path = self.states / f"{slug}.md"
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text)
        tmp.replace(path)

    def _dispatch(self, slug: str, at: datetime) -> Session:
        ensign = self.store.session(
            seeded_uuid(random.Random(f"{self.ensign_id}:{slug}")), cwd=str(self.cwd), agent_setting="spacedock:ensign"
        )
        ensign.prompt(f"Take {slug} from {self.status[slug]} to done, one stage at a time", at)
        ensign.tool("Read", at + timedelta(seconds=2), input={"file_path": str(self.states / f"{slug}.md")})
        return ensign

    def _plan(self, cycle: int, rng: random.Random) -> list[tuple[float, Action]]:
        def work(at: datetime) -> None:
            self.ensign.tokens(40 + rng.randrange(60), at)
            self.officer.tokens(10, at)

        def move(at: datetime) -> None:
            nxt = _next(self.status[self.held])
            if nxt is None:
                waiting = [s for s in ENTITIES if _next(self.status[s]) is not None]
                if not waiting:  # everything done: start the board over
                    for s in ENTITIES:
                        self.status[s] = "backlog"
                        self._write_state(s)
                    waiting = list(ENTITIES)
                self.ensign.end_turn(at, text=f"{self.held} is done.")
                self.held = waiting[0]
                self.officer.tool(
                    "Agent", at, input={"description": f"dispatch {self.held}", "subagent_type": "spacedock:ensign"}
                )
                self.ensign = self._dispatch(self.held, at)
                return
            self.status[self.held] = nxt
            self._write_state(self.held)
            self.ensign.tool("Edit", at, input={"file_path": str(self.states / f"{self.held}.md")})

        return [(5.0, work), (20.0, move), (30.0, work)]

    def step(self, now: datetime) -> None:
        self.schedule.step(now)


def _next(stage: str) -> str | None:
    i = STAGES.index(stage) if stage in STAGES else -1
    return STAGES[i + 1] if 0 <= i < len(STAGES) - 1 else None
