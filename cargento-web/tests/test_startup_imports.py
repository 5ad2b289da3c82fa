"""The server's start imports only what serving uses (docs/benchmark.md, "Whole processes").

Each module named here was imported at every server start for something most runs never do:
``importlib.metadata`` to find plugins, ``httpx`` for a vendor poll that needs consent and a
credential, PyYAML for a Spacedock frontmatter. (``http.client`` stays: Starlette imports it.)
"""

from __future__ import annotations

import subprocess
import sys

from cargento_web.extensions import FEATURES

_START = """
import sys
import cargento_web.cli, cargento_web.server, cargento_web.app, cargento_web.ingress
for name in sys.argv[1:]:
    __import__(name)
print("\\n".join(sorted(sys.modules)))
"""

NOT_AT_START = (
    "importlib.metadata",
    "zipfile",
    "packaging.requirements",
    "httpx",
    "yaml",
    "hypothesis",
    "pytest",
    "cargento.testing",
)


def test_the_server_start_imports_nothing_it_does_not_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _START, *FEATURES], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(done.stdout.split())
    assert {"uvicorn", "starlette.applications", *FEATURES} <= loaded
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))
