"""Where the recorded test data lives: the golden stores and the hook-payload captures.

Cargento keeps both in its repository, under ``testdata/golden`` and ``testdata/captures``. The
lookup takes, in order:

1. the environment variable (``CARGENTO_GOLDEN``, ``CARGENTO_CAPTURES``), for a plugin author
   who keeps recorded stores elsewhere;
2. ``testdata/golden`` (``testdata/captures``) in the current directory or the nearest parent
   that holds one: the project under test, when pytest runs from its checkout;
3. the same, walking up from this module: the checkout an editable install of the kit lives in.

The data is read-only material: copy a scenario before reading it (:func:`~cargento.testing.homes.copy_golden`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "CAPTURES_VARIABLE",
    "GOLDEN_VARIABLE",
    "TESTDATA_FOLDER",
    "MissingTestData",
    "captures_root",
    "golden_root",
    "require_captures_root",
    "require_golden_root",
]

#: The folder, at a project's root, that holds ``golden/`` and ``captures/``.
TESTDATA_FOLDER = "testdata"
#: Overrides where the golden stores are (a folder of ``<harness>-<version>/<scenario>/``).
GOLDEN_VARIABLE = "CARGENTO_GOLDEN"
#: Overrides where the hook-payload captures are.
CAPTURES_VARIABLE = "CARGENTO_CAPTURES"


class MissingTestData(FileNotFoundError):
    """The recorded test data a test asked for is not where the lookup looked."""


def golden_root() -> Path | None:
    """The golden stores folder, or ``None`` when the lookup finds none."""
    return _find("golden", GOLDEN_VARIABLE)


def captures_root() -> Path | None:
    """The hook-payload captures folder, or ``None`` when the lookup finds none."""
    return _find("captures", CAPTURES_VARIABLE)


def require_golden_root() -> Path:
    """The golden stores folder; raises :class:`MissingTestData` saying where it looked."""
    return _require("golden", GOLDEN_VARIABLE)


def require_captures_root() -> Path:
    """The hook-payload captures folder; raises :class:`MissingTestData` saying where it looked."""
    return _require("captures", CAPTURES_VARIABLE)


def _find(kind: str, variable: str) -> Path | None:
    override = os.environ.get(variable)
    if override:
        return Path(override) if Path(override).is_dir() else None
    for start in _starts():
        for folder in (start, *start.parents):
            candidate = folder / TESTDATA_FOLDER / kind
            if candidate.is_dir():
                return candidate
    return None


def _require(kind: str, variable: str) -> Path:
    found = _find(kind, variable)
    if found is not None:
        return found
    override = os.environ.get(variable)
    if override:
        raise MissingTestData(f"${variable} is {override!r}, which is not a directory")
    looked = " and ".join(str(start) for start in _starts())
    raise MissingTestData(
        f"no {TESTDATA_FOLDER}/{kind} folder in {looked} or any parent of them; set ${variable} to the folder"
    )


def _starts() -> tuple[Path, ...]:
    here = Path(__file__).resolve().parent
    cwd = Path.cwd().resolve()
    return (cwd,) if cwd == here else (cwd, here)
