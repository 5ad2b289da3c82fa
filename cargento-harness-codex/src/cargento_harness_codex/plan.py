"""Codex's own plan: the steps of the newest ``update_plan`` call, in both wire shapes."""

from __future__ import annotations

import re
from typing import Any

import attrs
import orjson
from cargento.models import Task, TaskStatus
from cargento.sharedmethods import shared_methods

from cargento_harness_codex.jsliteral import MAX_SOURCE, call_argument

__all__ = ["PlanStep", "plan_from_arguments", "plan_from_exec_source", "steps_to_tasks"]

_CALLEE = re.compile(r"(?<![A-Za-z0-9_$])(?:tools\s*\.\s*)?update_plan\s*\(")
_MAX_STEPS = 200
_STATUS: dict[str, TaskStatus] = {
    "pending": "pending",
    "todo": "pending",
    "not_started": "pending",
    "in_progress": "in_progress",
    "in-progress": "in_progress",
    "inprogress": "in_progress",
    "active": "in_progress",
    "running": "in_progress",
    "completed": "completed",
    "complete": "completed",
    "done": "completed",
}


@shared_methods
@attrs.frozen(repr=False, eq=False)
class PlanStep:
    """One step of a Codex plan; steps carry no timestamps of their own."""

    step: str
    status: TaskStatus


def _steps(value: Any) -> tuple[PlanStep, ...] | None:
    if not isinstance(value, dict):
        return None
    plan = value.get("plan")
    if not isinstance(plan, list):
        return None
    out: list[PlanStep] = []
    for item in plan[:_MAX_STEPS]:
        if not isinstance(item, dict):
            continue
        text = item.get("step")
        if not isinstance(text, str) or not text.strip():
            continue
        raw = item.get("status")
        status = _STATUS.get(raw.strip().lower(), "pending") if isinstance(raw, str) else "pending"
        out.append(PlanStep(step=text.strip(), status=status))
    return tuple(out)


def plan_from_arguments(arguments: Any) -> tuple[PlanStep, ...] | None:
    """Steps of a legacy ``update_plan`` function call (arguments as a JSON string or object)."""
    if isinstance(arguments, str):
        if len(arguments) > MAX_SOURCE:
            return None
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
    return _steps(arguments)


def plan_from_exec_source(source: Any) -> tuple[PlanStep, ...] | None:
    """Steps of the last ``tools.update_plan({...})`` call in a code-mode ``exec`` cell."""
    if not isinstance(source, str) or "update_plan" not in source:
        return None
    plans = [steps for steps in (_steps(arg) for arg in call_argument(source, _CALLEE)) if steps is not None]
    return plans[-1] if plans else None


def steps_to_tasks(steps: tuple[PlanStep, ...]) -> tuple[Task, ...]:
    """Plan steps as task rows: no ids, no creation times (so no age and no estimate)."""
    return tuple(Task(subject=s.step, status=s.status) for s in steps)
