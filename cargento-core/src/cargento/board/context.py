"""The machine facts every hook call is told: the home directory and the platform."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["current_platform", "default_home"]


def current_platform() -> str:
    """``linux``, ``darwin`` or ``win32``: the platform names ``HarnessContext`` uses."""
    if sys.platform.startswith("win"):
        return "win32"
    if sys.platform == "darwin":
        return "darwin"
    return "linux"


def default_home(env: Mapping[str, str]) -> Path:
    """The home directory *env* names (``HOME``, then ``USERPROFILE``), else the process's."""
    value = env.get("HOME") or env.get("USERPROFILE")
    return Path(value) if value else Path.home()
