"""The opt-in pytest plugin of the test kit: ``pytest_plugins = ["cargento.testing.fixtures"]``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from cargento.plugins import Registry, load_registry
from cargento.testing.homes import build_tree, copy_golden, golden_root

settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("CARGENTO_HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def registry() -> Registry:
    """An empty registry: no entry points loaded; add plugins with ``registry.add``."""
    return load_registry(entry_points=False)


@pytest.fixture
def register_harness(registry: Registry) -> Iterator[Callable[[object, str], object]]:
    """Register a plugin object under an id for one test, and unregister it afterwards."""
    added: list[object] = []

    def add(plugin: object, name: str) -> object:
        registry.add(plugin, name)
        added.append(plugin)
        return plugin

    yield add
    for plugin in added:
        if registry.pm.is_registered(plugin):
            registry.pm.unregister(plugin)


@pytest.fixture
def harness_home(tmp_path: Path) -> Callable[..., Path]:
    """Build a fake home tree from ``{relative path: content}``; see :func:`build_tree`."""

    def make(spec: dict[str, object], **kw: object) -> Path:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        return build_tree(home, spec, **kw)  # type: ignore[arg-type]

    return make


@pytest.fixture
def golden(tmp_path: Path) -> Callable[[str], tuple[Path, dict[str, object]]]:
    """Copy a golden scenario into a temp dir (mtimes restored); skip when not reachable
    outside CI (under ``CI=true`` a missing golden tree fails instead)."""
    if golden_root() is None:
        if os.environ.get("CI"):
            pytest.fail("the shared golden stores are not reachable under CI")
        pytest.skip("the shared golden stores are not reachable (set CARGENTO_GOLDEN)")

    def copy(scenario: str) -> tuple[Path, dict[str, object]]:
        return copy_golden(scenario, tmp_path)

    return copy
