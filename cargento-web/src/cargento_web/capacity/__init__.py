"""Capacity: how much allowance is left and how fast it goes (the capacity strip, quota
pressure in Attention, vendor quota with consent). See :mod:`.extension`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cargento.ownstore import OwnStore
from cargento.statedir import state_dir

from cargento_web.capacity.consent import FILE_NAME, read_answer
from cargento_web.capacity.extension import Capacity
from cargento_web.extensions import ExtensionContext

if TYPE_CHECKING:
    from cargento.cli import Options

__all__ = ["Capacity", "create", "own_stores"]


def create(context: ExtensionContext) -> Capacity:
    """Always on: under ``--no-usage`` quota a harness writes into its own store still shows."""
    return Capacity(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    """For ``--diagnose``: read only, so an unreadable answer is named and left in place."""
    path = Path(state_dir(env)) / FILE_NAME
    answer, problem = read_answer(path)
    if problem is not None:
        return [OwnStore(name="quota consent", path=str(path), status="unreadable", detail=problem)]
    if not path.exists():
        return [OwnStore(name="quota consent", path=str(path), status="absent", detail="the disclosure is unanswered")]
    return [OwnStore(name="quota consent", path=str(path), status="read", detail=f"vendor quota {answer}")]
