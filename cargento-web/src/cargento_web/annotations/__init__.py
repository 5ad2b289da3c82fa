"""What you asked each session to achieve: the goal and expected outcome lines you typed.

The feature keeps ``cargento-annotations.json`` (:mod:`.store`), answers ``POST /api/annotate``
and ``GET /api/annotations`` (:mod:`.routes`), publishes the words of the sessions on the board
in ``/api/data`` under ``annotations`` (:mod:`.summary`), builds the Intent log
(:mod:`.intent`) and seeds a few annotated demo sessions (:mod:`.demo`). Under
``--no-annotations`` the store is neither read nor written and the routes answer 503.

Other features reach the run's store with :func:`store_of`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cargento.ownstore import OwnStore, not_read
from cargento.statedir import state_dir

from cargento_web.annotations.extension import AnnotationsExtension
from cargento_web.annotations.store import ANNOTATIONS_FILE, AnnotationStore
from cargento_web.extensions import Extension, ExtensionContext, Extensions

if TYPE_CHECKING:
    from cargento.cli import Options

__all__ = ["AnnotationsExtension", "create", "forget", "own_stores", "store_of"]


def create(context: ExtensionContext) -> Extension:
    """The feature for this run; under ``--no-annotations`` it is off but still answers its
    routes with 503 and tells the page why, so nothing reads as "nothing typed"."""
    return AnnotationsExtension(context)


def store_of(extensions: Extensions | Iterable[Extension]) -> AnnotationStore | None:
    """The run's annotation store, or ``None`` when the feature is off or not loaded."""
    items = extensions.items if isinstance(extensions, Extensions) else extensions
    for item in items:
        if isinstance(item, AnnotationsExtension):
            return item.store
    return None


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    """For ``cargento --diagnose``: where the store is and whether it reads."""
    path = state_dir(env) / ANNOTATIONS_FILE
    if options is not None and options.no_annotations:
        return [not_read(ANNOTATIONS_FILE, path, "--no-annotations")]
    return [AnnotationStore(path).own_store()]


def forget(folder: Path) -> list[str]:
    """``--forget``'s share here: remove every discard record; the words you typed stay."""
    path = folder / ANNOTATIONS_FILE
    result = AnnotationStore(path).forget_discards(datetime.now(UTC))
    if result.outcome == "unchanged":
        return [f"{path}: no discard records"]
    if result.persisted:
        return [f"removed the discard records from {path} (your words are kept)"]
    return [f"{path}: the discard records were not removed ({result.reason})"]
