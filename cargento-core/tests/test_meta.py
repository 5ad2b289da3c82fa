"""Meta tests in the style of datasette: every hook is documented and tested; extras match dirs."""

from __future__ import annotations

import ast
import inspect
import tomllib
from pathlib import Path

import pytest
from cargento import hookspecs
from cargento._hookdocs import render

REPO = Path(__file__).resolve().parents[2]
HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")


def test_hooks_reference_is_generated_from_the_docstrings() -> None:
    page = (REPO / "docs" / "plugins" / "hooks.md").read_text()
    assert page == render(), "regenerate: python -m cargento._hookdocs > docs/plugins/hooks.md"


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_every_hook_is_documented(name: str) -> None:
    fn = getattr(hookspecs, name)
    doc = inspect.getdoc(fn) or ""
    assert "versionadded" in doc
    assert ":returns:" in doc
    for arg in inspect.signature(fn).parameters:
        assert f":param {arg}:" in doc, f"{name} documents {arg}"
    assert f"## `{name}`" in (REPO / "docs" / "plugins" / "hooks.md").read_text()


def _test_names() -> set[str]:
    names: set[str] = set()
    for path in (REPO / "cargento-core" / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text())
        names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
    return names


@pytest.mark.parametrize("name", hookspecs.HOOK_NAMES)
def test_every_hook_has_a_test(name: str) -> None:
    assert any(t.startswith(f"test_hook_{name}") for t in _test_names()), f"add a test_hook_{name}_* test"
    contract = (REPO / "cargento-core/src/cargento/testing/contract.py").read_text()
    assert name in contract, f"the HarnessContract exercises {name}"


def test_meta_distribution_extras_match_the_harness_directories() -> None:
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    dirs = sorted(p.name.removeprefix("cargento-harness-") for p in REPO.glob("cargento-harness-*") if p.is_dir())
    assert dirs == sorted(HARNESSES)
    extras = meta["project"]["optional-dependencies"]
    for key in HARNESSES:
        assert extras[key] == [f"cargento-harness-{key}==0.1.0"]
    assert sorted(extras["all"]) == sorted(f"cargento-harness-{k}==0.1.0" for k in HARNESSES)
    assert set(meta["project"]["dependencies"]) == {"cargento-core==0.1.0", "cargento-web==0.1.0"}


@pytest.mark.parametrize("key", HARNESSES)
def test_each_harness_is_a_src_layout_distribution_with_its_entry_point(key: str) -> None:
    base = REPO / f"cargento-harness-{key}"
    meta = tomllib.loads((base / "pyproject.toml").read_text())
    assert meta["project"]["name"] == f"cargento-harness-{key}"
    assert meta["project"]["entry-points"]["cargento.harness"] == {key: f"cargento_harness_{key}.plugin"}
    assert (base / "src" / f"cargento_harness_{key}" / "plugin.py").is_file()
    assert (base / "tests").is_dir()


def test_no_lock_files_are_tracked() -> None:
    ignore = (REPO / ".gitignore").read_text()
    assert "uv.lock" in ignore
