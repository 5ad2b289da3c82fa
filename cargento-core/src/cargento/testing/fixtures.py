"""The opt-in pytest plugin of the test kit: ``pytest_plugins = ["cargento.testing.fixtures"]``."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from cargento.plugins import Registry, load_registry
from cargento.testing.homes import build_tree, copy_golden
from cargento.testing.testdata import require_golden_root

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
    """Copy a golden scenario into a temp dir with its recorded mtimes. The stores are found by
    :mod:`cargento.testing.testdata`; when there are none the test errors (it never skips), with
    the places the lookup tried."""
    require_golden_root()

    def copy(scenario: str) -> tuple[Path, dict[str, object]]:
        return copy_golden(scenario, tmp_path)

    return copy


@pytest.fixture
def unprivileged_home() -> Iterator[Path]:
    """An empty home folder every user can reach (mode 0755, in a 0755 folder under the system
    temp directory, not pytest's private one), for :mod:`cargento.testing.unprivileged`;
    removed after the test."""
    parent = Path(tempfile.mkdtemp(prefix="cargento-unprivileged-"))
    try:
        parent.chmod(0o755)
        home = parent / "home"
        home.mkdir(mode=0o755)
        home.chmod(0o755)
        yield home
    finally:
        for dirpath, dirnames, _files in os.walk(parent):
            for name in dirnames:
                os.chmod(os.path.join(dirpath, name), 0o755)
        shutil.rmtree(parent)
