"""The forwarders: state file, loopback-only POSTs, slimmed bodies, silence, exit 0."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from cargento.forwarders import event_hook, notify_hook, statusline_hook
from cargento.forwarders._post import loopback_target, port_from
from cargento.forwarders.slim import slim_hook_payload, slim_status_line
from cargento.statedir import health_proof, valid_challenge
from hypothesis import given
from hypothesis import strategies as st


class Recorder(ThreadingHTTPServer):
    """A stand-in dashboard. With *capability* it answers the health challenge as the real
    one does; without, it is a squatter that took the port and answers like a dashboard."""

    requests: list[tuple[str, dict[str, str], Any]]
    status = 202
    capability: str | None = "cap-123"
    #: Every GET (the health challenge), with its headers.
    gets: list[tuple[str, dict[str, str]]]


class _Handler(BaseHTTPRequestHandler):
    server: Recorder

    def do_GET(self) -> None:
        self.server.gets.append((self.path, dict(self.headers)))
        url = urlsplit(self.path)
        answer: dict[str, Any] = {"app": "cargento", "pid": os.getpid()}
        challenge = parse_qs(url.query).get("challenge", [""])[0]
        if url.path == "/api/health" and self.server.capability is not None and valid_challenge(challenge):
            answer["proof"] = health_proof(self.server.capability, challenge)
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append((self.path, dict(self.headers), body))
        self.send_response(self.server.status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def dashboard(tmp_path: Path) -> Iterator[tuple[Recorder, dict[str, str]]]:
    server = Recorder(("127.0.0.1", 0), _Handler)
    server.requests = []
    server.gets = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    home = tmp_path / "cargento"
    home.mkdir()
    (home / f"cargento-{port}.json").write_text(json.dumps({"pid": os.getpid(), "port": port, "capability": "cap-123"}))
    env = {"CARGENTO_HOME": str(home), "CARGENTO_PORT": str(port), "HOME": str(tmp_path)}
    try:
        yield server, env
    finally:
        server.shutdown()
        server.server_close()


def stdin(value: Any) -> io.BytesIO:
    return io.BytesIO(json.dumps(value).encode())


PAYLOAD = {
    "session_id": "60c7ee03-4f92-45de-9def-6a9bd1350df5",
    "transcript_path": "/home/u/.claude/projects/-w/60c7.jsonl",
    "cwd": "/w/proj",
    "hook_event_name": "PostToolUse",
    "prompt_id": "cd9d8db9",
    "tool_name": "Bash",
    "tool_input": {"command": "git push -f", "description": "why the model wants it"},
    "tool_response": {"stdout": "x" * 100000},
    "last_assistant_message": "secret plans",
}


def test_event_hook_posts_the_slim_payload_with_the_capability(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    assert event_hook.main(["claude"], stdin=stdin(PAYLOAD), env=env) == 0
    ((path, headers, body),) = server.requests
    assert path == "/api/events/claude"
    assert headers["X-Cargento-Capability"] == "cap-123" and float(headers["X-Cargento-Hook-At"]) > 0
    assert body == {
        "session_id": PAYLOAD["session_id"],
        "hook_event_name": "PostToolUse",
        "prompt_id": "cd9d8db9",
        "tool_name": "Bash",
        "tool_input": {"command": "git push -f"},
    }


def test_event_hook_port_argument_and_event_flag(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    port = env.pop("CARGENTO_PORT")
    assert (
        event_hook.main(["antigravity", port, "--event", "PostInvocation"], stdin=stdin({"session_id": "c1"}), env=env)
        == 0
    )
    ((path, _, body),) = server.requests
    assert path == "/api/events/antigravity" and body == {"session_id": "c1", "hook_event_name": "PostInvocation"}


def test_no_dashboard_reads_one_file_and_exits_zero(tmp_path: Path) -> None:
    env = {"CARGENTO_HOME": str(tmp_path), "CARGENTO_PORT": "4999"}
    assert event_hook.main(["claude"], stdin=stdin(PAYLOAD), env=env) == 0
    assert notify_hook.main([], stdin=stdin(PAYLOAD), env=env) == 0
    assert statusline_hook.main([], stdin=stdin({"agent_state": "idle"}), env=env) == 0
    assert list(tmp_path.iterdir()) == []


def test_a_dashboard_run_with_no_events_publishes_no_capability(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    state = Path(env["CARGENTO_HOME"]) / f"cargento-{env['CARGENTO_PORT']}.json"
    state.write_text(json.dumps({"pid": 1, "capability": None}))
    assert event_hook.main(["claude"], stdin=stdin(PAYLOAD), env=env) == 0
    assert server.requests == []


def test_missing_harness_or_bad_port_exits_zero(
    dashboard: tuple[Recorder, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    server, env = dashboard
    assert event_hook.main([], stdin=stdin(PAYLOAD), env=env) == 0
    assert event_hook.main(["claude", "99999"], stdin=stdin(PAYLOAD), env=env) == 0
    assert server.requests == [] and capsys.readouterr().out == ""


def test_garbage_stdin_sends_nothing(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    for data in (b"", b"not json", b"[1,2]", b"\xff\xfe"):
        assert event_hook.main(["claude"], stdin=io.BytesIO(data), env=env) == 0
    assert server.requests == []


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("http://127.0.0.1:4553/api/notify", True),
        ("http://127.9.9.9:80/api/notify", True),
        ("http://[::1]:4553/api/notify", True),
        ("http://localhost:4553/api/notify", True),
        ("http://example.com:4553/api/notify", False),
        ("http://10.0.0.1:4553/api/notify", False),
        ("http://127.0.0.1.nip.io/api/notify", False),
        ("https://127.0.0.1:4553/api/notify", False),
        ("http://user:pw@127.0.0.1:4553/api/notify", False),
        ("file:///etc/passwd", False),
        ("http://127.0.0.1:99999/x", False),
    ],
)
def test_notify_hook_refuses_anything_but_loopback(url: str, ok: bool) -> None:
    assert (loopback_target(url) is not None) == ok


def test_notify_hook_refuses_a_remote_url_and_sends_nothing(
    dashboard: tuple[Recorder, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    server, env = dashboard
    assert notify_hook.main(["http://192.0.2.1:4553/api/notify"], stdin=stdin(PAYLOAD), env=env) == 0
    assert server.requests == [] and capsys.readouterr().out == ""


def test_notify_hook_default_url_and_a_given_one(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    note = {
        "session_id": "s1",
        "hook_event_name": "Notification",
        "message": "Claude needs your permission",
        "notification_type": "permission_prompt",
        "transcript_path": "/x",
    }
    assert notify_hook.main([], stdin=stdin(note), env=env) == 0
    assert (
        notify_hook.main(
            [f"http://127.0.0.1:{env['CARGENTO_PORT']}/api/usage"],
            stdin=stdin({"quota": {"a": 1}, "email": "e"}),
            env=env,
        )
        == 0
    )
    (p1, _, b1), (p2, _, b2) = server.requests
    assert p1 == "/api/notify" and "transcript_path" not in b1 and b1["notification_type"] == "permission_prompt"
    assert p2 == "/api/usage" and b2 == {"quota": {"a": 1}, "email": "e"}, (
        "the older usage line forwards the document as it came"
    )


def test_statusline_sends_state_and_quota_only_and_posts_once_per_change(
    dashboard: tuple[Recorder, dict[str, str]],
) -> None:
    server, env = dashboard
    push = {
        "agent_state": "working",
        "conversation_id": "4c1d-1",
        "session_id": "4c1d-1",
        "email": "me@example.com",
        "transcript_path": "/secret",
        "cwd": "/w",
        "quota": {"gemini-5h": {"remaining_fraction": 0.8, "reset_time": "T"}},
    }
    for _ in range(5):
        assert statusline_hook.main([], stdin=stdin(push), env=env) == 0
    assert len(server.requests) == 1
    body = server.requests[0][2]
    assert body == {
        "hook_event_name": "StatusLine",
        "agent_state": "working",
        "conversation_id": "4c1d-1",
        "session_id": "4c1d-1",
        "quota": {"gemini-5h": {"remaining_fraction": 0.8, "reset_time": "T"}},
    }
    assert statusline_hook.main([], stdin=stdin({**push, "agent_state": "idle"}), env=env) == 0
    assert len(server.requests) == 2
    memos = sorted(p.name for p in Path(env["CARGENTO_HOME"]).glob("statusline-*.json"))
    assert memos == ["statusline-4c1d-1.json"]


def test_statusline_refreshes_a_standing_working_state(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    push = {"agent_state": "working", "conversation_id": "c2"}
    statusline_hook.main([], stdin=stdin(push), env=env)
    memo = Path(env["CARGENTO_HOME"]) / "statusline-c2.json"
    data = json.loads(memo.read_text())
    data["at"] -= statusline_hook.REFRESH_S + 1
    memo.write_text(json.dumps(data))
    statusline_hook.main([], stdin=stdin(push), env=env)
    assert len(server.requests) == 2


def test_statusline_retries_when_the_post_failed(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    server.status = 500
    statusline_hook.main([], stdin=stdin({"agent_state": "idle", "conversation_id": "c3"}), env=env)
    server.status = 202
    statusline_hook.main([], stdin=stdin({"agent_state": "idle", "conversation_id": "c3"}), env=env)
    assert len(server.requests) == 2


def test_port_resolution() -> None:
    assert port_from("9999", {}) == 9999
    assert port_from(None, {"CARGENTO_PORT": "4600"}) == 4600
    assert port_from(None, {}) == 4553
    assert port_from("x", {}) is None and port_from("0", {}) is None


@pytest.mark.parametrize("module", ["event_hook", "notify_hook", "statusline_hook"])
def test_runs_as_python_dash_m_prints_nothing_and_exits_zero(
    module: str, dashboard: tuple[Recorder, dict[str, str]]
) -> None:
    server, env = dashboard
    args = ["claude"] if module == "event_hook" else []
    payload = {"agent_state": "working", "conversation_id": "c9"} if module == "statusline_hook" else PAYLOAD
    done = subprocess.run(
        [sys.executable, "-m", f"cargento.forwarders.{module}", *args],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    assert len(server.requests) == 1


def test_codex_permission_request_hook_prints_nothing(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    payload = {
        "session_id": "019fd197",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "turn_id": "t",
        "tool_input": {"command": "ls", "description": "list"},
    }
    done = subprocess.run(
        [sys.executable, "-m", "cargento.forwarders.event_hook", "codex"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert (done.returncode, done.stdout) == (0, b""), "empty output and exit 0: no opinion on the gate"
    assert server.requests[0][2]["hook_event_name"] == "PermissionRequest"


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=10), c, max_size=4),
    max_leaves=12,
)


@given(
    st.dictionaries(
        st.sampled_from(["session_id", "tool_input", "details", "quota", "message", "event", "x"]), _values, max_size=6
    )
)
def test_slimming_never_raises_and_stays_json(payload: dict[str, Any]) -> None:
    json.dumps(slim_hook_payload(payload))
    json.dumps(slim_status_line(payload))


FORWARDERS = [
    (event_hook.main, ["claude"], PAYLOAD),
    (
        notify_hook.main,
        [],
        {"session_id": "s1", "hook_event_name": "Notification", "message": "PGPASSWORD=hunter2 psql"},
    ),
    (statusline_hook.main, [], {"conversation_id": "c1", "agent_state": "working"}),
]


@pytest.mark.parametrize(("forward", "args", "payload"), FORWARDERS, ids=["event", "notify", "statusline"])
def test_a_squatter_on_the_port_receives_neither_payload_nor_capability(
    forward: Any, args: list[str], payload: dict[str, Any], dashboard: tuple[Recorder, dict[str, str]]
) -> None:
    """After a crash the state file stays; whatever holds the port now cannot answer the
    challenge (it lacks the capability), so it is sent the challenge alone."""
    server, env = dashboard
    server.capability = None  # the squatter: answers like a dashboard, knows no capability
    assert forward(args, stdin=stdin(payload), env=env) == 0
    assert server.requests == []
    assert len(server.gets) == 1
    path, headers = server.gets[0]
    assert path.startswith("/api/health?challenge=") and "cap-123" not in path
    assert "cap-123" not in json.dumps(headers)


@pytest.mark.parametrize(("forward", "args", "payload"), FORWARDERS, ids=["event", "notify", "statusline"])
def test_a_dead_pid_in_the_state_file_means_nothing_is_sent(
    forward: Any, args: list[str], payload: dict[str, Any], dashboard: tuple[Recorder, dict[str, str]]
) -> None:
    server, env = dashboard
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    state = Path(env["CARGENTO_HOME"]) / f"cargento-{server.server_address[1]}.json"
    state.write_text(json.dumps({"pid": gone.pid, "port": server.server_address[1], "capability": "cap-123"}))
    assert forward(args, stdin=stdin(payload), env=env) == 0
    assert server.requests == [] and server.gets == []


def test_a_wrong_proof_is_refused(dashboard: tuple[Recorder, dict[str, str]]) -> None:
    server, env = dashboard
    server.capability = "another-run"  # a dashboard of another run on the same port
    assert event_hook.main(["claude"], stdin=stdin(PAYLOAD), env=env) == 0
    assert server.requests == [] and len(server.gets) == 1


@pytest.mark.parametrize("module", ["event_hook", "notify_hook", "statusline_hook"])
def test_a_forwarder_imports_nothing_it_does_not_need(module: str) -> None:
    """A forwarder runs on every tool call (Codex waits on its PermissionRequest hook before
    drawing the prompt): it loads the standard library's few modules and its own, never the
    plugin framework, the models, a plugin, or a heavy library."""
    import subprocess

    code = f"import sys; import cargento.forwarders.{module}; print('\\n'.join(sorted(sys.modules)))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    heavy = {"typing", "attr", "attrs", "cattrs", "pluggy", "orjson", "http.client", "email", "tempfile", "psutil"}
    assert not heavy & loaded, sorted(heavy & loaded)
    # Each of these costs a forwarder milliseconds to import on every hook (docs/benchmark.md,
    # "Whole processes"): the parts it needs are reached without them.
    slow = {"re", "enum", "json", "socket", "selectors", "hmac", "hashlib", "_hashlib", "secrets", "base64"}
    slow |= {"pathlib", "urllib", "urllib.parse", "ipaddress", "collections", "importlib", "contextlib"}
    assert not slow & loaded, sorted(slow & loaded)
    ours = {m for m in loaded if m.startswith("cargento")}
    assert not any(
        m.startswith(("cargento_harness", "cargento_web", "cargento.models", "cargento.board")) for m in ours
    ), sorted(ours)
