"""The forwarders' lean stand-ins read and write exactly what the standard library would.

A forwarder avoids :mod:`json`, :mod:`hmac`, :mod:`re`, :mod:`urllib.parse` and
:mod:`pathlib` for their import cost (docs/benchmark.md, "Whole processes"); each stand-in is
held here to the module it replaces, over generated input.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
from cargento.forwarders import _post, leanjson, proof
from cargento.forwarders.event_hook import valid_event, valid_harness
from cargento.statedir import health_proof, read_state, state_dir, state_file, valid_challenge
from cargento.statepath import state_dir_path, state_file_path
from hypothesis import given, settings
from hypothesis import strategies as st

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to itself (``json`` reads ``NaN`` as a float that is not)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _stdlib_loads(text: str, *, constants: bool = True) -> tuple[str, Any]:
    try:
        if constants:
            return "ok", json.loads(text)
        return "ok", json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except (ValueError, RecursionError):
        return "error", None


def _lean_loads(text: str, *, constants: bool = True) -> tuple[str, Any]:
    try:
        return "ok", leanjson.loads(text, constants=constants)
    except (ValueError, RecursionError):
        return "error", None


@given(_DOCUMENTS, st.booleans())
def test_leanjson_writes_what_json_dumps_writes(value: Any, sort_keys: bool) -> None:
    expected = json.dumps(value, separators=(",", ":"), sort_keys=sort_keys).encode("ascii")
    assert leanjson.dumps(value, sort_keys=sort_keys) == expected


@given(_DOCUMENTS, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_leanjson_reads_what_json_writes(value: Any, space: str) -> None:
    text = space + json.dumps(value, indent=1 if space else None) + space
    assert _same(leanjson.loads(text), json.loads(text))


_JSONISH = st.text(alphabet='{}[]":,.0123456789-+eEtrufalsnNIiy \\\t\n\ufeffé', max_size=40)


@settings(max_examples=400)
@given(_JSONISH, st.booleans())
def test_leanjson_accepts_and_refuses_what_json_does(text: str, constants: bool) -> None:
    lean, stdlib = _lean_loads(text, constants=constants), _stdlib_loads(text, constants=constants)
    assert lean[0] == stdlib[0], (text, lean, stdlib)
    assert _same(lean[1], stdlib[1])


@pytest.mark.parametrize("text", ["{", '"abc', "[1,", '{"a" 1}', "[1] x", "", "\ufeff{}", "NaN", "[-Infinity]"])
def test_leanjson_malformed_documents_raise_value_error(text: str) -> None:
    assert _lean_loads(text, constants=False) == ("error", None)


def test_leanjson_nan_and_infinity_only_when_allowed() -> None:
    value = leanjson.loads("[NaN, Infinity, -Infinity]")
    assert math.isnan(value[0]) and value[1:] == [math.inf, -math.inf]
    with pytest.raises(ValueError):
        leanjson.loads("[NaN]", constants=False)


def test_leanjson_refuses_what_json_cannot_write() -> None:
    with pytest.raises(TypeError):
        leanjson.dumps({"a": object()})
    with pytest.raises(ValueError):
        cycle: list[Any] = []
        cycle.append(cycle)
        leanjson.dumps(cycle)


@given(st.text(max_size=100), st.text(min_size=16, max_size=128))
def test_the_forwarders_hmac_is_the_dashboards_proof(capability: str, nonce: str) -> None:
    assert proof.expected_proof(capability, nonce) == health_proof(capability, nonce)


def test_a_challenge_is_fresh_and_valid() -> None:
    seen = {proof.challenge() for _ in range(50)}
    assert len(seen) == 50 and all(valid_challenge(c) for c in seen)


def test_same_compares_whole_strings() -> None:
    assert proof.same("abc", "abc")
    assert not proof.same("abc", "abd") and not proof.same("abc", "ab")


_HARNESS = re.compile(r"[a-z][a-z0-9-]{1,31}")
_EVENT = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
_NAMEISH = st.text(alphabet="aZz09-_.é \n", max_size=70) | st.from_regex(_HARNESS, fullmatch=True)


@settings(max_examples=400)
@given(_NAMEISH | st.from_regex(_EVENT, fullmatch=True))
def test_the_name_checks_are_the_patterns(text: str) -> None:
    assert valid_harness(text) == bool(_HARNESS.fullmatch(text))
    assert valid_event(text) == bool(_EVENT.fullmatch(text))


_URLS = st.builds(
    lambda scheme, host, port, path: f"{scheme}://{host}{port}{path}",
    st.sampled_from(["http", "HTTP", "https"]),
    st.sampled_from(["127.0.0.1", "localhost", "LOCALHOST", "127.1.2.3", "[::1]", "example.com", "u:p@127.0.0.1"]),
    st.sampled_from(["", ":", ":0", ":80", ":4553", ":04600", ":65535", ":65536", ":x", ":٣"]),
    st.text(alphabet="/api?=#%@ a\té.;[]", max_size=16),
)


@settings(max_examples=500)
@given(_URLS)
def test_the_plain_url_reading_is_the_full_one(url: str) -> None:
    plain = _post._plain_loopback(url)
    if plain is None:
        return
    import ipaddress  # the full reading, as loopback_target does it without the plain shape
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    assert parts.scheme == "http" and not parts.username
    host = parts.hostname or ""
    assert host == "localhost" or ipaddress.ip_address(host).is_loopback
    path = parts.path + ("?" + parts.query if parts.query else "")
    assert (plain.port, plain.path) == (parts.port or 80, path or "/")


def test_loopback_target_still_reads_the_other_shapes() -> None:
    assert _post.loopback_target("http://127.0.0.1:4600/api/notify") is not None
    target = _post.loopback_target("http://[::1]:4601/api/notify?x=1")
    assert target is not None and (target.port, target.path) == (4601, "/api/notify?x=1")
    assert _post.loopback_target("http://example.com:4600/api/notify") is None


@pytest.mark.parametrize(
    "env",
    [
        {"CARGENTO_HOME": "/srv/state"},
        {"CARGENTO_HOME": "  ~/state/ "},
        {"CARGENTO_HOME": "", "HOME": "/home/a"},
        {"USERPROFILE": "/users/b"},
        {},
    ],
)
def test_the_state_paths_are_the_state_directorys(env: dict[str, str]) -> None:
    assert Path(state_dir_path(env)) == state_dir(env)
    assert Path(state_file_path(4553, env)) == state_file(4553, env)


@pytest.mark.parametrize(
    "content",
    [
        b'{"pid": 1, "capability": "c"}',
        b"[1]",
        b"{",
        b'{"x": NaN}',
        b"\xff\xfe",
        b" " * (64 * 1024) + b"{}",
        b'{"a": "' + b"x" * (64 * 1024) + b'"}',
    ],
)
def test_the_forwarders_state_read_is_the_dashboards(tmp_path: Path, content: bytes) -> None:
    env = {"CARGENTO_HOME": str(tmp_path)}
    (tmp_path / "cargento-4553.json").write_bytes(content)
    assert _post.read_state(4553, env) == read_state(4553, env)


def test_the_forwarders_state_read_never_blocks_on_a_named_pipe(tmp_path: Path) -> None:
    env = {"CARGENTO_HOME": str(tmp_path)}
    os.mkfifo(tmp_path / "cargento-4553.json")
    assert _post.read_state(4553, env) is None
    assert _post.read_state(4554, env) is None  # missing


@settings(max_examples=300)
@given(st.text(max_size=100))
def test_the_status_line_memo_name_is_the_patterns(conversation: str) -> None:
    from cargento.forwarders.statusline_hook import MEMO_PREFIX, _memo_path

    expected = re.sub(r"[^A-Za-z0-9._-]", "_", conversation)[:80] if conversation else "none"
    assert _memo_path("/state", conversation or None) == f"/state/{MEMO_PREFIX}{expected}.json"


def test_read_object_refuses_what_read_json_object_refuses(tmp_path: Path) -> None:
    from cargento.readers.jsonobject import read_json_object

    for content in (b'{"state": "idle"}', b"[]", b"{", b'{"a": Infinity}', b"x" * 5000):
        path = tmp_path / "memo.json"
        path.write_bytes(content)
        assert _post.read_object(str(path), 4096) == read_json_object(path, max_bytes=4096)
