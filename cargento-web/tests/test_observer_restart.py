"""A reading a stop or a restart cuts short is recorded as an interrupted attempt: once when
the server stops cleanly mid-call, and once when a real ``cargento`` process is killed mid-call
and the next start finds the in-flight marker it left. The words are the real annotation store's
(typed through ``POST /api/annotate``), and the reading is recorded against them."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from cargento_web.annotations.store import ANNOTATIONS_FILE


def _kit() -> Any:
    if "observer_kit" in sys.modules:
        return sys.modules["observer_kit"]
    spec = importlib.util.spec_from_file_location("observer_kit", Path(__file__).with_name("observer_kit.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["observer_kit"] = module
    spec.loader.exec_module(module)
    return module


kit = _kit()
FEATURES = ["cargento_web.annotations", "cargento_web.observer"]


def _annotate(url: str, sid: str) -> None:
    answer = httpx.post(
        url + "/api/annotate",
        headers={"Origin": url, "Content-Type": "application/json"},
        content=json.dumps({"harness": "claude", "sid": sid, "goal": "Fix the retry test", "lines": ["tests pass"]}),
        timeout=10,
    )
    assert answer.status_code == 200 and answer.json()["outcome"] == "stored", answer.text


def _serve(serve: Any, builder_for: Any, tmp_path: Path, home: Path, state: Path) -> Any:
    from cargento_harness_claude import plugin as claude

    env = {"PATH": str(tmp_path / "bin")}
    server = serve(builder_for([("claude", claude)], home, env=env), features=FEATURES, state_dir=state)
    httpx.get(server.url + "/api/data", timeout=10)
    return server


def test_a_reading_the_server_stops_mid_call_is_recorded_interrupted_and_read_back(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = kit.claude_home(tmp_path)
    kit.fake_bin(tmp_path / "bin")
    kit.set_mode(tmp_path / "bin", "hang")
    state = tmp_path / "state"
    server = _serve(serve, builder_for, tmp_path, home, state)
    _annotate(server.url, kit.SID)
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("flight") and kit.session_of(d)["flight"]["sent"]))
    server.stop()
    pid = kit.calls(tmp_path / "bin", "claude")[-1]["pid"]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 0)
        raise AssertionError("the reader's process outlived the server")
    again = _serve(serve, builder_for, tmp_path, home, state)
    attempt = kit.session_of(kit.observer_doc(again))["attempts"][-1]
    assert attempt["ending"] == "interrupted" and attempt["spent"] is True
    assert "could not be confirmed" in attempt["detail"]
    assert kit.session_of(kit.observer_doc(again))["flight"] is None


def test_a_killed_server_leaves_a_marker_the_next_start_records_as_interrupted(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = kit.claude_home(tmp_path)
    bin_dir = kit.fake_bin(tmp_path / "bin")
    kit.set_mode(bin_dir, "hang")
    state = tmp_path / "state"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE_", "CODEX_", "CARGENTO_", "XDG_"))}
    env.update({"HOME": str(home), "CARGENTO_HOME": str(state), "PATH": f"{bin_dir}:{env.get('PATH', '')}"})
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "cargento"), "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        httpx.get(url + "/api/data", timeout=10)
        _annotate(url, kit.SID)

        class Remote:
            pass

        remote = Remote()
        remote.url = url  # type: ignore[attr-defined]
        assert kit.press(remote, allow=True).status_code == 202
        kit.wait_for(remote, lambda d: bool(kit.session_of(d).get("flight") and kit.session_of(d)["flight"]["sent"]))
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for call in kit.calls(bin_dir, "claude"):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(call["pid"], signal.SIGKILL)
    marker = json.loads(next((state / "observer").glob("claude_*.json")).read_text())["inflight"]
    assert marker is not None and marker["reserved"], "the killed run left its marker"
    assert (state / ANNOTATIONS_FILE).exists()
    again = _serve(serve, builder_for, tmp_path, home, state)
    record = kit.session_of(kit.observer_doc(again))
    assert record["flight"] is None
    assert record["attempts"][-1]["ending"] == "interrupted" and record["attempts"][-1]["spent"] is True
    assert kit.observer_doc(again)["budget"]["used"] == 1, "an interrupted attempt still counts"


def test_a_reading_is_recorded_against_the_annotation_records(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    from cargento_web.annotations.store import AnnotationStore

    home = kit.claude_home(tmp_path)
    kit.fake_bin(tmp_path / "bin")
    kit.set_mode(tmp_path / "bin", "departs")
    state = tmp_path / "state"
    server = _serve(serve, builder_for, tmp_path, home, state)
    _annotate(server.url, kit.SID)
    assert kit.press(server, allow=True).status_code == 202
    doc = kit.wait_for(
        server, lambda d: bool(kit.session_of(d).get("attempts")) and kit.session_of(d)["flight"] is None
    )
    record = kit.session_of(doc)
    assert record["revision"] == 1 and record["readings"][-1]["recorded"] is True
    words = AnnotationStore(state / ANNOTATIONS_FILE).get("claude", kit.SID)
    assert words is not None and words.readings[-1]["revision"] == 1  # type: ignore[union-attr]
    assert words.readings[-1]["rows"][0]["verdict"] == "departs"  # type: ignore[union-attr]
    assert record["departed_at"] is not None


def test_under_observer_model_a_goal_less_session_adopts_its_latest_prompt(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    from cargento.cli import Options
    from cargento_harness_claude import plugin as claude
    from cargento_web.annotations.store import AnnotationStore

    home = kit.claude_home(tmp_path)
    kit.fake_bin(tmp_path / "bin")
    plain = _serve(serve, builder_for, tmp_path, home, tmp_path / "plain")
    refused = kit.press(plain, allow=True)
    assert refused.status_code == 200 and refused.json()["produced"] is False, (
        "nothing typed, no adoption without the flag"
    )
    state = tmp_path / "state"
    server = serve(
        builder_for([("claude", claude)], home, env={"PATH": str(tmp_path / "bin")}),
        features=FEATURES,
        options=Options(observer_model=True),
        state_dir=state,
    )
    httpx.get(server.url + "/api/data", timeout=10)
    assert kit.press(server, allow=True).status_code == 202
    doc = kit.wait_for(server, lambda d: bool(kit.session_of(d).get("readings")))
    assert kit.session_of(doc)["readings"][-1]["goal_source"] == "prompt"
    words = AnnotationStore(state / ANNOTATIONS_FILE).get("claude", kit.SID)
    assert words is not None and words.current.goal == "make the retry test pass"  # type: ignore[union-attr]
    assert words.current.goal_source == "prompt"  # type: ignore[union-attr]
    assert "GOAL: make the retry test pass" in kit.calls(tmp_path / "bin", "claude")[-1]["prompt"]


def test_discard_everything_withdraws_the_quotations_from_the_readings(
    serve: Any, builder_for: Any, tmp_path: Path
) -> None:
    home = kit.claude_home(tmp_path)
    kit.fake_bin(tmp_path / "bin")
    kit.set_mode(tmp_path / "bin", "departs")
    state = tmp_path / "state"
    server = _serve(serve, builder_for, tmp_path, home, state)
    _annotate(server.url, kit.SID)
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool(kit.session_of(d).get("readings")))
    discard = httpx.post(
        server.url + "/api/annotate",
        headers={"Origin": server.url, "Content-Type": "application/json"},
        content=json.dumps({"harness": "claude", "sid": kit.SID, "clear": True}),
        timeout=10,
    )
    assert discard.status_code == 200, discard.text
    doc = kit.wait_for(server, lambda d: bool(kit.session_of(d)["readings"][-1].get("withdrawn")))
    reading = kit.session_of(doc)["readings"][-1]
    assert "tests pass" not in json.dumps(kit.session_of(doc)), "no quotation of the words stays"
    assert reading["rows"][0]["verdict"] == "departs", "the fact that a check ran stays"
    assert "tests pass" not in next((state / "observer").glob("claude_*.json")).read_text()


def test_the_answer_is_remembered_across_a_restart(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    home = kit.claude_home(tmp_path)
    kit.fake_bin(tmp_path / "bin")
    state = tmp_path / "state"
    first = _serve(serve, builder_for, tmp_path, home, state)
    _annotate(first.url, kit.SID)
    assert kit.press(first).status_code == 403
    assert kit.press(first, allow=True).status_code == 202
    kit.wait_for(first, lambda d: bool(kit.session_of(d).get("readings")))
    first.stop()
    again = _serve(serve, builder_for, tmp_path, home, state)
    assert kit.press(again).status_code == 202, "no disclosure again after a restart"
    doc = kit.wait_for(again, lambda d: kit.session_of(d)["attempt_count"] == 2 and kit.session_of(d)["flight"] is None)
    assert doc["budget"]["used"] == 2 and [a["attempt"] for a in kit.session_of(doc)["attempts"]] == [1, 2]
