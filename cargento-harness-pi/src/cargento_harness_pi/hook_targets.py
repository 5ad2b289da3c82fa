"""Where ``cargento hooks`` puts Pi's adapter: a copy of the bundled extension at
``extensions/cargento.js`` under ``PI_CODING_AGENT_DIR`` or ``~/.pi/agent``."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from cargento.events.targets import HookTarget

from cargento_harness_pi import locations

__all__ = ["ADAPTER", "adapter_text", "targets"]

KEY = "pi"
ADAPTER = "pi_extension.js"


def adapter_text() -> str:
    """The bundled extension, as shipped in this package."""
    return resources.files(__package__).joinpath("hooks", ADAPTER).read_text(encoding="utf-8")


def targets(env: Mapping[str, str], home: Path) -> tuple[HookTarget, ...]:
    base = env.get(locations.CONFIG_VARIABLE, "").strip()
    return (
        HookTarget(
            name=KEY,
            style="adapter_file",
            path=(Path(base) if base else home / locations.CONFIG_DEFAULT) / "extensions" / "cargento.js",
            description="a copy of the Pi extension under PI_CODING_AGENT_DIR or ~/.pi/agent",
            adapter_text=adapter_text(),
        ),
    )
