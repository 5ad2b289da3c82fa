"""The layering rule, enforced: imports flow harness -> core and web -> core only, and no
first-party harness id is written as a literal in core's or web's source.

Read from the source tree with :mod:`ast` (nothing is imported), so it is fast and needs
neither web nor any harness installed. Tests, the test kit (``cargento/testing``) and docs are
exempt: they name real harnesses on purpose.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "cargento-core" / "src" / "cargento"
WEB = REPO / "cargento-web" / "src" / "cargento_web"
HARNESS_IDS = frozenset(
    {"claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid"}
)
#: Calls whose first string argument names a module or package.
_NAMING_CALLS = frozenset({"import_module", "__import__", "find_spec", "files", "import_plugin"})
_JS_STRING = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")


def _sources(root: Path, *, skip: tuple[str, ...] = ()) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if not any(part in skip for part in p.relative_to(root).parts))


def _harness_sources() -> list[Path]:
    return sorted(p for p in REPO.glob("cargento-harness-*/src/*/**/*.py"))


def imported_modules(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every module *tree* imports: import statements, and the string a dynamic import or a
    package-resource lookup names (``importlib.import_module("x")``, ``resources.files("x")``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in _NAMING_CALLS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    yield node.lineno, first.value


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                ids.add(id(body[0].value))
        # A bare string statement is a comment-like docstring for the attribute above it.
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            ids.add(id(node.value))
    return ids


def harness_literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every non-docstring ``str`` constant that is exactly a first-party harness id."""
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docs
            and node.value in HARNESS_IDS
        ):
            yield node.lineno, node.value


def js_harness_literals(text: str) -> Iterator[tuple[int, str]]:
    """Every quoted JavaScript string that is exactly a first-party harness id (comments
    are not code and are skipped)."""
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0] if not line.lstrip().startswith("*") else ""
        for match in _JS_STRING.finditer(code):
            if match.group(2) in HARNESS_IDS:
                yield number, match.group(2)


def _violations(paths: list[Path], forbidden: tuple[str, ...], *, root: Path = REPO) -> list[str]:
    found = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in imported_modules(tree):
            if module.startswith(forbidden):
                found.append(f"{path.relative_to(root)}:{line} names {module}")
    return found


# -- the rule on the repository -------------------------------------------------------------


def test_core_imports_neither_web_nor_a_harness() -> None:
    assert _violations(_sources(CORE), ("cargento_web", "cargento_harness_")) == []


def test_web_imports_no_harness() -> None:
    assert _violations(_sources(WEB), ("cargento_harness_",)) == []


def test_no_harness_imports_web() -> None:
    paths = _harness_sources()
    assert len({p.parts[len(REPO.parts)] for p in paths}) == 10
    assert _violations(paths, ("cargento_web",)) == []


def test_no_harness_id_is_written_in_core_or_web_python() -> None:
    found = []
    for path in [*_sources(CORE, skip=("testing",)), *_sources(WEB)]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(REPO)}:{line} {value!r}" for line, value in harness_literals(tree)]
    assert found == []


def test_no_harness_id_is_written_in_the_pages_scripts() -> None:
    scripts = sorted(p for p in (WEB / "static").glob("*.js"))
    assert scripts, "the page's scripts are where they were"
    found = [
        f"{p.relative_to(REPO)}:{line} {value!r}"
        for p in scripts
        for line, value in js_harness_literals(p.read_text(encoding="utf-8"))
    ]
    assert found == []


# -- the checks themselves can fail ---------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "import cargento_web",
        "from cargento_web.ingress import routes",
        "import importlib\nimportlib.import_module('cargento_web.ingress')",
        "from importlib import resources\nresources.files('cargento_harness_pi')",
        "def f():\n    from cargento_harness_claude import plugin",
    ],
)
def test_a_forbidden_import_is_caught(source: str, tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_text(source)
    (violation,) = _violations([path], ("cargento_web", "cargento_harness_"), root=tmp_path)
    assert violation.startswith("mod.py:")


def test_a_harness_literal_is_caught_but_not_in_a_docstring_or_a_longer_string() -> None:
    source = '"""Module about claude."""\nX = "codex"\nY = "codex-events"\ndef f():\n    """pi"""\n    return {"key": "pi"}\n'
    assert [v for _, v in harness_literals(ast.parse(source))] == ["codex", "pi"]


def test_a_js_harness_literal_is_caught_but_not_in_a_comment() -> None:
    text = 'const a = "claude"; // "codex"\nconst b = `goose`;\nconst c = "claude-like";\n'
    assert [v for _, v in js_harness_literals(text)] == ["claude", "goose"]
