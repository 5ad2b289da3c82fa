"""Where ``cargento hooks`` puts OpenCode's adapter: a copy of the passive plugin at
``<project>/.opencode/plugin/cargento.js`` (OpenCode loads plugins per project)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from cargento.events.targets import HookTarget

__all__ = ["ADAPTER", "adapter_text", "targets"]

KEY = "opencode"
ADAPTER = "opencode_plugin.js"


def adapter_text() -> str:
    """The bundled plugin, as shipped in this package."""
    return resources.files(__package__).joinpath("hooks", ADAPTER).read_text(encoding="utf-8")


def targets(project: Path | None) -> tuple[HookTarget, ...]:
    return (
        HookTarget(
            name=KEY,
            style="adapter_file",
            path=None if project is None else project / ".opencode" / "plugin" / "cargento.js",
            description="a copy of the passive plugin in <project>/.opencode/plugin/",
            unavailable="opencode is installed per project: pass --project DIR" if project is None else None,
            adapter_text=adapter_text(),
        ),
    )
