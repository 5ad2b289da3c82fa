"""Which platform this is, and whose home an environment names: the two facts every context
Cargento builds for the plugins starts from."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

# ``typing`` only for the type checker: the hook forwarders import this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    #: The platform names a :class:`~cargento.models.HarnessContext` carries.
    Platform = Literal["linux", "darwin", "win32"]

__all__ = ["current_platform", "home_from"]


def current_platform(name: str | None = None) -> Platform:
    """``"win32"``, ``"darwin"`` or ``"linux"`` for *name* (default :data:`sys.platform`);
    every other Unix counts as ``"linux"``."""
    name = sys.platform if name is None else name
    if name.startswith("win"):
        return "win32"
    if name == "darwin":
        return "darwin"
    return "linux"


def home_from(env: Mapping[str, str]) -> Path:
    """The user's home as *env* names it: ``HOME``, else ``USERPROFILE`` (Windows), else the
    process's own home."""
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else Path.home()
