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
print("\\n".join(sorted(sys.modules)))
sys.exit(code)
"""

#: The same run as the console script starts it (``main()`` with no *argv*, which also takes
#: attrs' compiled methods from the code cache); it ends in ``os._exit`` after the exit
#: handlers, so one of them lists the modules.
_CONSOLE_SNAPSHOT = """
import atexit, io, sys
atexit.register(lambda: print("\\n".join(sorted(sys.modules)), file=sys.__stdout__, flush=True))
sys.argv = ["cargento", "--json"]
sys.stdout = io.TextIOWrapper(io.BytesIO())
from cargento.cli import main
main()
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
    # Writing a model walks its fields (cargento.serde); cattrs is for parsing our own JSON.
    "cattrs",
    "pytest",
    "cargento.testing",
    # A harness whose store holds no session never loads its readers (this home has none).
    "cargento_harness_antigravity.mapping",
    "cargento_harness_droid.mapping",
    "cargento_harness_droid.transcript",
    "cargento_harness_gemini.mapping",
    "cargento_harness_opencode.mapping",
    "cargento_harness_codex.mapping",
    "cargento_harness_codex.rollout",
    "cargento_harness_codex.summary",
    "cargento_harness_pi.mapping",
    "cargento_harness_pi.tree",
)


#: What only the server or ``cargento hooks``/``cargento telemetry`` asks a plugin for: the
#: event lanes and hook targets, the OpenTelemetry vocabularies, the quota endpoints, the
#: reading providers and work records. A snapshot calls none of those hooks, so none of these
#: loads (each harness imports its module inside the hook; the hookspecs and the registry's
#: return checks name the types without importing them). ``statistics`` (with ``random``,
#: ``fractions`` and ``decimal``) was imported for one median; ``traceback`` (and ``textwrap``)
#: loads with the first fault.
HOOKS_A_SNAPSHOT_NEVER_CALLS = (
    "cargento.events",
    "cargento.events.payloads",
    "cargento.events.vocabulary",
    "cargento.events.targets",
    "cargento.events.notifications",
    "cargento.events.settings",
    "cargento.forwarders",
    "cargento.telemetry",
    "cargento.telemetry.vocabulary",
    "statistics",
    "fractions",
    "decimal",
    "traceback",
    "textwrap",
    *(
        f"cargento_harness_{harness}.{module}"
        for harness in ("antigravity", "claude", "codex", "copilot", "cursor", "gemini", "goose", "opencode", "pi")
        for module in ("event_lane", "hook_targets", "telemetry", "quota", "reading", "work")
    ),
)


def _snapshot_modules(home: Path, script: str = _SNAPSHOT, **extra: str) -> set[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_"))},
        "HOME": str(home),
        "CARGENTO_HOME": str(home / "state"),
        **extra,
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(done.stdout.split())  # check=True: the run exited 0
    assert "cargento.board" in loaded and "cargento_harness_claude.plugin" in loaded
    return loaded


def test_a_snapshot_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    loaded = _snapshot_modules(tmp_path)
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))


def test_the_console_start_imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    """The console script's own start too: the code cache it installs checks its file's
    digest without hashlib, whose import loads OpenSSL's _hashlib."""
    loaded = _snapshot_modules(tmp_path, _CONSOLE_SNAPSHOT)
    assert "cargento.codecache" in loaded
    assert not loaded & set(NOT_AT_START), sorted(loaded & set(NOT_AT_START))


def test_a_snapshot_loads_no_module_of_a_hook_it_never_calls(tmp_path: Path) -> None:
    loaded = _snapshot_modules(tmp_path)
    assert {"cargento_harness_codex.plugin", "cargento_harness_pi.plugin"} <= loaded
    assert not loaded & set(HOOKS_A_SNAPSHOT_NEVER_CALLS), sorted(loaded & set(HOOKS_A_SNAPSHOT_NEVER_CALLS))


def test_the_credential_patterns_compile_only_for_a_text_that_hints_at_one() -> None:
    # Compiling every family costs a start about 7 ms; a board of titles, paths and tool
    # names gives none of them anything to look at.
    script = """
import cargento.redact as r
assert r.redact("Fix the flaky test in src/app.py (bash: pytest -q)") == "Fix the flaky test in src/app.py (bash: pytest -q)"
print(r.families.cache_info().currsize)
print(r.redact("key sk-ant-api03-" + "a" * 90))
print(r.families.cache_info().currsize, len(r.FAMILIES) == len(r.families()))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    untouched, redacted, compiled = done.stdout.splitlines()
    assert untouched == "0"
    assert redacted.startswith("key sk-ant-") and redacted.endswith("…REDACTED")
    assert compiled == "1 True"
