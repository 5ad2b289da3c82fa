"""The project cockpit: the server part of ``#n=project:<p>`` (see :mod:`.extension`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from cargento.diagnose import OwnStore
from cargento.statedir import state_dir

from cargento_web.cockpit.extension import Cockpit
from cargento_web.cockpit.semantic import SEMANTIC_FILE, semantic_report
from cargento_web.cockpit.tripwires import TRIPWIRES_FILE, store_report
from cargento_web.extensions import ExtensionContext

__all__ = ["Cockpit", "create", "own_stores"]


def create(context: ExtensionContext) -> Cockpit:
    """The cockpit runs in every dashboard; ``--no-spacedock`` and ``--no-tripwires`` switch
    off its parts, which it says in its document and page configuration."""
    return Cockpit(context)


def own_stores(env: Mapping[str, str]) -> Iterable[OwnStore]:
    """The cockpit's stores for ``--diagnose``: the tripwire store's path and any read failure
    (absent under ``--no-tripwires`` is not knowable here, so the file is always named), and
    the semantic work history."""
    directory = state_dir(env)
    return [store_report(directory / TRIPWIRES_FILE), semantic_report(directory / SEMANTIC_FILE)]
