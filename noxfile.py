"""Cargento's task menu: ``nox --list``.

Every session installs from the working tree into its own virtual environment, so what it
proves holds for a fresh machine.
"""

from __future__ import annotations

import json
import pathlib

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint", "typecheck"]

ROOT = pathlib.Path(__file__).parent
HARNESSES = ["claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid"]


def _install_dev(session: nox.Session) -> None:
    session.install("-r", "requirements-dev.txt")


@nox.session
def tests(session: nox.Session) -> None:
    """Every package's test suite, browser tests included (the README's test command runs this)."""
    _install_dev(session)
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the whole tree: the lint rules, and the formatting (what CI checks)."""
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict over every src tree and every tests directory (``.ci/typecheck``, as CI runs it)."""
    _install_dev(session)
    session.run("bash", ".ci/typecheck", env={"MYPY": str(pathlib.Path(session.bin) / "mypy")}, external=True)


@nox.session
def diagnose(session: nox.Session) -> None:
    """Install cargento[all] and assert --diagnose reports all ten harnesses loaded."""
    _install_dev(session)
    out = session.run("cargento", "--diagnose", "--json", silent=True)
    report = json.loads(str(out))
    loaded = {p["name"] for p in report["plugins"] if p["status"] == "loaded"}
    missing = set(HARNESSES) - loaded
    if missing:
        session.error(f"not loaded: {sorted(missing)}")
    session.log(f"all ten harnesses loaded: {sorted(loaded)}")


@nox.session
def broken_plugin(session: nox.Session) -> None:
    """A plugin that fails to import and one that raises at call time: diagnose reports both,
    the others still load, and the board still serves."""
    _install_dev(session)
    session.run(
        "pytest",
        "cargento-core/tests/test_plugins.py",
        "cargento-core/tests/test_calls.py",
        "cargento-core/tests/test_cli.py",
        "-k",
        "import_error or fault or exits_non_zero or broken",
    )


@nox.session
def build(session: nox.Session) -> None:
    """Build all thirteen distributions into dist/ and prove that
    `pip install --find-links dist 'cargento[all]'` in a fresh venv gives ten loaded harnesses."""
    session.install("build", "pytest", "pytest-timeout", "orjson")
    session.run(
        "pytest",
        "-m",
        "slow",
        "cargento-core/tests/test_distributions.py",
        env={"CARGENTO_KEEP_DIST": str(ROOT / "dist")},
    )


@nox.session
def example(session: nox.Session) -> None:
    """Install the tutorial's example harness (docs/plugins/example-harness) beside core and the
    web dashboard only (no first-party harness) and run its tests."""
    session.install("-e", "cargento-core[testing]", "-e", "cargento-web")
    session.install("-e", "docs/plugins/example-harness[test]", "pytest-timeout")
    session.run("pytest", "docs/plugins/example-harness/tests")
    out = session.run("cargento", "--diagnose", "--json", silent=True)
    names = {p["name"]: p["status"] for p in json.loads(str(out))["plugins"]}
    if names.get("example") != "loaded":
        session.error(f"example harness not loaded: {names}")


@nox.session
def bench(session: nox.Session) -> None:
    """The performance benchmark (see docs/benchmark.md); writes bench/results/<stamp>.json."""
    _install_dev(session)
    session.run("python", "bench/run.py", *session.posargs)


@nox.session
def hookdocs(session: nox.Session) -> None:
    """Regenerate docs/plugins/hooks.md from the hookspec docstrings."""
    session.install("-e", "cargento-core")
    out = session.run("python", "-m", "cargento._hookdocs", silent=True)
    (ROOT / "docs" / "plugins" / "hooks.md").write_text(str(out))


@nox.session
def plugins(session: nox.Session) -> None:
    """Regenerate the harness plugins under plugins/ (``-- --check``: only check them)."""
    _install_dev(session)
    session.run("python", "plugins/generate.py", *session.posargs)
