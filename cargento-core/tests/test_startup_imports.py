"""``cargento --json`` imports only what a snapshot uses (docs/benchmark.md, "Whole processes").

Each module named here cost the first board milliseconds of every start for nothing it read:
``importlib.metadata`` (the e-mail parser, ``zipfile``, ``csv``) and the PEP 508 parser for
plugin loading (and its version and specifier grammars, for the ``==0.1.*`` every plugin writes),
OpenSSL through ``hashlib`` for a BLAKE2 digest, the web dashboard's stack.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SNAPSHOT = """
import contextlib, io, sys
from cargento.cli import main
with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
    code = main(["--json"])
print(code, file=sys.stderr)
print("\\n".join(sorted(sys.modules)))
"""

NOT_AT_START = (
    "importlib.metadata",
    "email",
    "email.message",
    "zipfile",
    "csv",
    "packaging.requirements",
    "packaging.markers",
    "packaging.version",
    "packaging.specifiers",
    "_hashlib",
    "hashlib",
    "starlette",
    "uvicorn",
    "hypothesis",
    "pytest",
    "cargento.testing",
    # A harness whose store holds no session never loads its readers (this home has none).
    "cargento_harness_antigravity.mapping",
    "cargento_harness_droid.mapping",
    "cargento_harness_droid.transcript",
    "cargento_harness_gemini.mapping",
    "cargento_harness_opencode.mapping",
)


def test_a_snapshot_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))},
        "HOME": str(tmp_path),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _SNAPSHOT], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stderr.strip().endswith("0"), done.stderr
    loaded = set(done.stdout.split())
    assert "cargento.board" in loaded and "cargento_harness_claude.plugin" in loaded
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))
