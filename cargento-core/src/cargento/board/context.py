"""The machine facts every hook call is told: the home directory and the platform.

Kept as the board's names for them (``default_home`` is public API); both are
:mod:`cargento.platforms`' helpers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cargento.platforms import current_platform, home_from

__all__ = ["current_platform", "default_home"]


def default_home(env: Mapping[str, str]) -> Path:
    """The home directory *env* names (``HOME``, then ``USERPROFILE``), else the process's."""
    return home_from(env)
