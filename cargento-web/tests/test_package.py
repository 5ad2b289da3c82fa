"""The distribution ships the page, and the daemon's command line round-trips its options."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cargento.cli import Options, parse_args
from cargento.redact import redact_tree
from cargento_web.lifecycle import options_argv
from hypothesis import given
from hypothesis import strategies as st

PACKAGE = Path(__file__).resolve().parents[1]
SHIPPED = [
    "cargento_web/static/index.html",
    "cargento_web/static/app.js",
    "cargento_web/static/views.js",
    "cargento_web/static/format.js",
    "cargento_web/static/marks.js",
    "cargento_web/static/sameness.js",
    "cargento_web/static/steadytext.js",
    "cargento_web/static/config.js",
    "cargento_web/static/api.js",
    "cargento_web/static/slots.js",
    "cargento_web/static/features.js",
    "cargento_web/static/telemetry.js",
    "cargento_web/static/reach.js",
    "cargento_web/static/focus.js",
    "cargento_web/static/ask.js",
    "cargento_web/static/endings.js",
    "cargento_web/static/history.js",
    "cargento_web/static/dismissals.js",
    "cargento_web/static/intent.js",
    "cargento_web/static/drift.js",
    "cargento_web/static/goalsummary.js",
    "cargento_web/static/capacity.js",
    "cargento_web/static/cockpit.js",
    "cargento_web/static/spacedock.js",
    "cargento_web/static/tripwires.js",
    "cargento_web/static/terminal.js",
    "cargento_web/static/terminal.css",
    "cargento_web/static/vendor/xterm.mjs",
    "cargento_web/static/vendor/xterm.css",
    "cargento_web/static/vendor/LICENSE.xterm",
    "cargento_web/static/evidence.js",
    "cargento_web/static/app.css",
    "cargento_web/static/favicon.svg",
    "cargento_web/static/vendor/preact.mjs",
    "cargento_web/static/vendor/preact-hooks.mjs",
    "cargento_web/static/vendor/htm.mjs",
    "cargento_web/static/vendor/LICENSE.preact",
    "cargento_web/static/vendor/LICENSE.htm",
]


@pytest.mark.slow
def test_the_wheel_contains_the_page_and_the_licences(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(PACKAGE)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    (wheel,) = tmp_path.glob("cargento_web-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [n for n in SHIPPED if n not in names]
    assert not missing
    assert not any("node_modules" in n or n.endswith(("package-lock.json", ".map")) for n in names)


options = st.builds(
    Options,
    port=st.integers(min_value=1, max_value=65535),
    host=st.sampled_from(["127.0.0.1", "0.0.0.0"]),
    window_hours=st.floats(min_value=0.001, max_value=10_000, allow_nan=False, allow_infinity=False),
    all=st.booleans(),
    as_of=st.none()
    | st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)).map(
        lambda d: d.replace(microsecond=(d.microsecond // 1000) * 1000)
    ),
    demo=st.booleans(),
    no_events=st.booleans(),
    no_irreversible=st.booleans(),
    no_notify=st.booleans(),
    verbose=st.booleans(),
)


@given(options)
def test_the_detached_server_gets_the_same_options(opts: Options) -> None:
    assert parse_args(options_argv(opts)) == opts


SECRET = "sk-ant-api03-" + "Q" * 24
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.text(max_size=10).map(lambda t: t + " " + SECRET),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)] + list(value)
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


@given(json_values)
def test_redaction_reaches_every_string_and_keeps_the_shape(value: Any) -> None:
    out = redact_tree(value)
    assert _shape(out) == _shape(value)
    assert not any("Q" * 24 in s for s in _strings(out))  # keys are at most 8 characters: never a secret
