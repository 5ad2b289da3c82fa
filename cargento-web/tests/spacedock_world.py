"""A Spacedock workflow built for a test: a workflow directory (README frontmatter with the
ordered stage list, one state file per entity), and first officers that booted it in real
Claude, Pi and Codex stores made with those harnesses' fixtures modules."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cargento_harness_claude.fixtures import ClaudeStore
from cargento_harness_codex.fixtures import CodexStore
from cargento_harness_pi.fixtures import PiStore

STAGES = ("backlog", "ideation", "implementation", "validation", "done")
FO_SID = "f0f0f0f0-0000-4000-8000-000000000001"
ENSIGN_SID = "e1e1e1e1-0000-4000-8000-000000000002"
PI_SID = "a1a1a1a1-0000-4000-8000-000000000003"
CODEX_SID = "01a22b67-0000-7000-8000-0000000000d4"


class Workflow:
    """A workflow directory whose entity state files a test moves through the stages."""

    def __init__(self, root: Path, stages: Sequence[str] = STAGES, *, nested: bool = True) -> None:
        self.dir = root / "docs" / "plans"
        self.dir.mkdir(parents=True, exist_ok=True)
        lines = ["---", "commissioned-by: spacedock@0.9", "entity-type: task", "stages:", "  states:"]
        for n, stage in enumerate(stages):
            lines.append(f"    - name: {stage}")
            if n == 0:
                lines.append("      initial: true")
        lines += ["---", "", "# Plans", "", "The workflow's prose, which no reader looks at."]
        (self.dir / "README.md").write_text("\n".join(lines) + "\n")
        self.entity_dir = self.dir if not nested else self.dir / ".state"
        self.entity_dir.mkdir(exist_ok=True)

    def entity(self, slug: str, status: str | None, *, title: str | None = None) -> None:
        fm = [f"title: {title or slug.replace('-', ' ').title()}"]
        if status is not None:
            fm.append(f"status: {status}")
        path = self.entity_dir / f"{slug}.md"
        path.write_text("---\n" + "\n".join(fm) + "\n---\n\nBody text no reader looks at.\n")


def claude_first_officer(
    home: Path, cwd: str, workflow: Workflow, *, dispatchable: Sequence[dict[str, str]] = ()
) -> None:
    now = time.time()
    store = ClaudeStore(home)
    fo = store.session(FO_SID, cwd=cwd, agent_setting="spacedock:first-officer")
    fo.prompt("Run the plans workflow", now - 60)
    fo.spacedock_boot(str(workflow.dir), str(workflow.entity_dir), now - 50, dispatchable=dispatchable)
    fo.tool("Bash", now - 5, input={"command": "sleep 30"})


def claude_ensign(home: Path, cwd: str, entity: str) -> None:
    now = time.time()
    ensign = ClaudeStore(home).session(ENSIGN_SID, cwd=cwd, agent_setting="spacedock:ensign")
    ensign.prompt(f"Implement {entity}: take it from implementation to validation", now - 40)
    ensign.tool("Edit", now - 3, input={"file_path": "/x"})


def pi_first_officer(home: Path, cwd: str, workflow: Workflow) -> None:
    at = datetime.now(UTC) - timedelta(seconds=30)
    s = PiStore(home).session(PI_SID, cwd=cwd, at=at)
    s.prompt("boot the workflow", at)
    s.spacedock_boot(str(workflow.dir), str(workflow.entity_dir), at + timedelta(seconds=2))
    s.reply("Booted.", at + timedelta(seconds=3))


def codex_first_officer(home: Path, cwd: str, workflow: Workflow) -> None:
    at = datetime.now(UTC) - timedelta(seconds=30)
    s = CodexStore(home).session(CODEX_SID, cwd=cwd, at=at)
    s.turn_start(at)
    s.prompt("Run the plans workflow", at)
    s.spacedock_boot(str(workflow.dir), str(workflow.entity_dir), at + timedelta(seconds=2))
