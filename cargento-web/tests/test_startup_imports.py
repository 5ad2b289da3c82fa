"""The server's start imports only what serving uses (docs/benchmark.md, "Whole processes").

Each module named here was imported at every server start for something most runs never do:
``importlib.metadata`` to find plugins, ``httpx`` for a vendor poll that needs consent and a
credential, PyYAML for a Spacedock frontmatter, uvicorn's command line (click) and reloaders
(watchfiles, multiprocessing) through its package's ``__init__``. (``http.client`` stays: Starlette imports it.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    # The turn estimate's measured table is read from beside cargento.turns (importlib.resources
    # brought its readers, tempfile and random to every start for one file).
    "importlib.resources",
    "packaging.requirements",
    "httpx",
    "yaml",
    "hypothesis",
    # Writing a model walks its fields (cargento.serde); cattrs is for parsing our own JSON.
    "cattrs",
    "pytest",
    "cargento.testing",
    # The --diagnose report (its models, the maturity table): the features report their own
    # stores through cargento.ownstore.
    "cargento.diagnose",
    "cargento.maturity",
    # uvicorn's command line and reloaders (cargento_web.uvicornparts).
    "uvicorn.main",
    "uvicorn.supervisors",
    "click",
    "watchfiles",
    "multiprocessing",
)


def test_the_server_start_imports_nothing_it_does_not_use() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _START, *FEATURES], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(done.stdout.split())
    assert {"uvicorn", "starlette.applications", *FEATURES} <= loaded
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))


_SERVE = """
import http.client, os, signal, socket, sys, threading, time

def port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

PORT = port()

def first_answer():
    while True:
        try:
            c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
            c.request("GET", "/api/data")
            if c.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.02)
    with open(sys.argv[1], "w") as out:
        out.write("\\n".join(sorted(sys.modules)))
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=first_answer, daemon=True).start()
from cargento.cli import main
sys.exit(main(["--port", str(PORT), "--otlp-port", "0"]))
"""

#: Imported by a real start before its first answer until they were made lazy: the demo's
#: seeders, the reach webhook's urllib.request, dbus-fast (found, not imported, to say whether
#: notifications can work), a WebSocket implementation uvicorn looked for, webbrowser, and
#: anyio's asyncio backend.
NOT_BY_THE_FIRST_ANSWER = (
    *NOT_AT_START,
    "cargento.demo",
    "cargento_web.ask.demo",
    "cargento_web.history.demo",
    "cargento_web.endings.demo",
    "cargento_web.annotations.demo",
    "cargento_web.capacity.demo",
    "cargento_web.reach.post",
    "urllib.request",
    "dbus_fast",
    "websockets",
    "wsproto",
    "webbrowser",
    # anyio's asyncio backend, which its first to_thread call loaded (cargento_web.workerthreads).
    "anyio._backends._asyncio",
)


def test_a_real_start_imports_nothing_its_first_answer_does_not_use(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "DBUS_"))},
        "HOME": str(tmp_path / "home"),
        "CARGENTO_HOME": str(tmp_path / "state"),
    }
    listing = tmp_path / "modules.txt"
    subprocess.run([sys.executable, "-c", _SERVE, str(listing)], env=env, capture_output=True, timeout=120, check=False)
    loaded = set(listing.read_text().split())
    assert {"uvicorn.server", "cargento_web.app", *FEATURES} <= loaded
    assert not loaded & set(NOT_BY_THE_FIRST_ANSWER), sorted(loaded & set(NOT_BY_THE_FIRST_ANSWER))
