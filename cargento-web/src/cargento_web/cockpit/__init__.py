"""The project cockpit: the server part of ``#n=project:<p>`` (see :mod:`.extension`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from cargento.ownstore import OwnStore, not_read
from cargento.statedir import state_dir

from cargento_web.cockpit.extension import Cockpit
from cargento_web.cockpit.semantic import SEMANTIC_FILE, semantic_report
from cargento_web.cockpit.tripwires import TRIPWIRES_FILE, store_report
from cargento_web.extensions import ExtensionContext

if TYPE_CHECKING:
    from cargento.cli import Options

__all__ = ["Cockpit", "create", "own_stores"]


def create(context: ExtensionContext) -> Cockpit:
    """The cockpit runs in every dashboard; ``--no-spacedock`` and ``--no-tripwires`` switch
    off its parts, which it says in its document and page configuration."""
    return Cockpit(context)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    """The cockpit's stores for ``--diagnose``: the tripwire store's path and any read failure
    (not read under ``--no-tripwires``), and the semantic work history."""
    directory = state_dir(env)
    tripwires = directory / TRIPWIRES_FILE
    if options is not None and options.no_tripwires:
        return [not_read("tripwires", tripwires, "--no-tripwires"), semantic_report(directory / SEMANTIC_FILE)]
    return [store_report(tripwires), semantic_report(directory / SEMANTIC_FILE)]
