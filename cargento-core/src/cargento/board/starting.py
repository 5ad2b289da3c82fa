"""Starting rows: a running harness process that has no session store yet.

The process table ties a harness's running CLI to a directory (:mod:`.liveness`). A process in
a directory where no session of the harness has written since the process started has not
written a store yet (Claude Code, for one, writes its transcript on the first prompt): it is a
row of its own whose state is ``starting``. The row claims only what the process table says: its
directory (the project label and nothing else for a title), its pid and its start time. No
model, tokens, turn or wait is claimed. It ranks after working rows and before idle ones, and
it leaves the board once a session of the harness writes in that directory after the process
started; then that session's own row stands in its place.
"""

from __future__ import annotations

from cargento.board.document import BoardSession, Starting
from cargento.board.identity import identity, row_key
from cargento.labels import project_label
from cargento.models import Evidence, HarnessInfo

__all__ = ["DETAIL", "starting_id", "starting_row"]

#: The row's detail line.
DETAIL = "starting · no session store yet"


def starting_id(pid: int) -> str:
    """The row's session id: the process, since the harness has named no session yet."""
    return f"pid-{pid}"


def starting_row(info: HarnessInfo, process: Starting, home: str) -> BoardSession:
    """The row of one running *info* process with no store yet."""
    sid = starting_id(process.pid)
    project = project_label(process.cwd, home)
    when = f", started {process.started_at:%Y-%m-%d %H:%M:%S} UTC" if process.started_at is not None else ""
    evidence = Evidence(
        reading="state",
        signal="process table",
        source=f"process table · pid {process.pid}",
        observed_at=process.started_at,
        said=(
            f"a running {info.label} process (pid {process.pid}{when}) has the working directory {process.cwd}, "
            "and no session of this harness there has written since it started"
        ),
    )
    return BoardSession(
        harness=info.key,
        harness_label=info.label,
        session_id=sid,
        key=row_key(info.key, sid),
        display_id=sid[:8],
        identity=identity(info.key, project, sid),
        project=project,
        cwd=process.cwd,
        title=None,
        state="starting",
        detail=DETAIL,
        waiting=None,
        subagents=(),
        tasks=(),
        tasks_done=0,
        model=None,
        model_display=None,
        authority=None,
        output_tokens_per_min=None,
        output_tokens_total=None,
        started_at=process.started_at,
        last_active_at=process.started_at,
        turn=None,
        resume_command=None,
        resume_cwd=None,
        read_by_scanning=not info.turn_end_observable,
        instruction=None,
        role=None,
        loop=None,
        ended=False,
        # Honest: what a store would tell is not known yet, never zero.
        missing=("title", "model", "tokens"),
        notes=(),
        faults=(),
        rate_limits=(),
        ai_units=None,
        state_source="process table",
        evidence=(evidence,),
    )
