"""``POST /api/reading`` end to end: a real server, a real Claude Code store, fake ``codex`` and
``claude`` executables on PATH that record what they were sent and answer, fail, hang or answer
garbage; every status the specification lists, asserted over HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from cargento.cli import Options
from cargento_web import observer as observer_module
from cargento_web.observer.budget import BUDGET_FILE
from cargento_web.observer.consent import CONSENT_FILE, forget


def _kit() -> Any:
    import importlib.util
    import sys

    if "observer_kit" in sys.modules:
        return sys.modules["observer_kit"]
    spec = importlib.util.spec_from_file_location("observer_kit", Path(__file__).with_name("observer_kit.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["observer_kit"] = module
    spec.loader.exec_module(module)
    return module


kit = _kit()
OTHER, SECRET, SID = kit.OTHER, kit.SECRET, kit.SID
FakeIntents = kit.FakeIntents
calls, claude_home, fake_bin, intent = kit.calls, kit.claude_home, kit.fake_bin, kit.intent
observer_doc, post, press, session_of, set_mode, wait_for = (
    kit.observer_doc,
    kit.post,
    kit.press,
    kit.session_of,
    kit.set_mode,
    kit.wait_for,
)

FEATURE = ["cargento_web.observer"]


@pytest.fixture
def words(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    held = FakeIntents({("claude", SID): intent()})
    monkeypatch.setattr(observer_module, "AnnotatedIntents", lambda folder, off: held)
    yield held


def _serve(
    serve: Any,
    builder_for: Any,
    tmp_path: Path,
    *,
    bin_dir: Path | None = None,
    options: Options | None = None,
    output: str = "12 passed",
    state: Path | None = None,
) -> Any:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_codex import plugin as codex

    home = claude_home(tmp_path, output=output, sessions=(SID, OTHER))
    env = {"PATH": str(bin_dir if bin_dir is not None else fake_bin(tmp_path / "bin"))}
    server = serve(
        # the Codex plugin is loaded for its reading provider (the Codex CLI), as cargento[all] does
        builder_for([("claude", claude), ("codex", codex)], home, env=env),
        features=FEATURE,
        options=options,
        state_dir=state or tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)  # the first board
    return server


def _ext(server: Any) -> Any:
    return server.extensions.items[0]


def _stored(doc: dict[str, Any]) -> bool:
    s = session_of(doc)
    return bool(s.get("attempts")) and s.get("flight") is None


def test_the_guard_the_cap_on_the_body_and_the_shape_of_the_body(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    assert httpx.get(server.url + "/api/reading", timeout=5).status_code == 405
    foreign = post(server, "/api/reading", {"press": True}, Origin="http://evil.example")
    assert foreign.status_code == 403
    navigation = post(server, "/api/reading", {"press": True}, **{"Sec-Fetch-Mode": "navigate"})
    assert navigation.status_code == 403
    big = post(server, "/api/reading", {"press": True, "pad": "x" * 12_300})
    assert big.status_code == 413
    assert post(server, "/api/reading", {"harness": "claude", "sid": SID}).status_code == 400, (
        "press and observer_model are required"
    )
    assert post(server, "/api/reading", [1]).status_code == 400
    assert calls(tmp_path / "bin", "claude") == []


def test_refused_for_the_run_with_503(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    off = _serve(serve, builder_for, tmp_path / "a", options=Options(no_annotations=True))
    answer = press(off)
    assert answer.status_code == 503 and answer.json()["reason"] == "annotations-off"
    model_off = _serve(serve, builder_for, tmp_path / "b", options=Options(observer_model=False))
    answer = press(model_off)
    assert answer.status_code == 503 and answer.json()["reason"] == "model-off"
    words.why = "the annotation store could not be read whole"
    gate = _serve(serve, builder_for, tmp_path / "c")
    answer = press(gate)
    assert answer.status_code == 503 and answer.json()["reason"] == "gate-closed"
    assert "could not be read whole" in answer.json()["error"]


def test_unavailable_permission_storage_is_503(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    state = tmp_path / "state"
    (state / CONSENT_FILE).mkdir(parents=True)  # a folder where the file should be: unreadable
    server = _serve(serve, builder_for, tmp_path, state=state)
    answer = press(server, allow=True)
    assert answer.status_code == 503 and answer.json()["reason"] == "permission-storage"


def test_no_provider_on_this_machine_is_503_with_the_route_and_its_reason(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    server = _serve(serve, builder_for, tmp_path, bin_dir=empty)
    answer = press(server)
    assert answer.status_code == 503
    body = answer.json()
    assert body["reason"] == "no-provider" and body["route"]["provider"] is None
    assert "neither the Claude Code CLI (claude) nor the Codex CLI (codex)" in body["route"]["reason"]
    assert observer_doc(server)["routes"]["claude"]["reason"] == body["route"]["reason"], (
        "the page shows the same reason"
    )


def test_provider_changed_is_409_with_the_current_route_and_nothing_saved_or_spent(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    only_codex = fake_bin(tmp_path / "bin", names=("codex",))
    server = _serve(serve, builder_for, tmp_path, bin_dir=only_codex)
    answer = press(server, provider="claude", allow=True)
    assert answer.status_code == 409
    body = answer.json()
    assert body["reason"] == "provider-changed" and body["route"]["provider"] == "codex"
    assert not (tmp_path / "state" / CONSENT_FILE).exists(), "nothing was saved"
    assert not (tmp_path / "state" / BUDGET_FILE).exists(), "nothing was spent"
    assert press(server, provider=None).json()["reason"] == "provider-changed", "a missing provider is a changed one"


def test_without_consent_403_then_allow_and_analyze_reads_and_remembers(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    refused = press(server)
    assert refused.status_code == 403 and refused.json()["reason"] == "consent"
    assert refused.json()["disclosure"]["destination"].startswith("Anthropic")
    assert not (tmp_path / "state" / BUDGET_FILE).exists(), "a refusal before the model runs spends nothing"
    assert observer_doc(server)["budget"]["used"] == 0
    started = press(server, allow=True)
    assert started.status_code == 202, started.text
    assert started.json()["flight"]["steps"] == [
        "Preparing what is sent",
        "Waiting for the Claude Code CLI",
        "Checking the reply",
    ]
    doc = wait_for(server, _stored)
    reading = session_of(doc)["readings"][-1]
    assert [r["verdict"] for r in reading["rows"]] == ["consistent"]
    assert session_of(doc)["attempts"][-1]["ending"] == "stored"
    assert doc["budget"]["used"] == 1, "the counter shows the recorded model request"
    assert words.recorded and words.recorded[-1][2]["rows"] == reading["rows"], "recorded against the words"
    assert json.loads((tmp_path / "state" / CONSENT_FILE).read_text())["providers"].keys() == {"claude"}, (
        "that provider only"
    )
    again = press(server)
    assert again.status_code == 202, "the answer is remembered"
    wait_for(server, lambda d: session_of(d)["attempt_count"] == 2 and session_of(d)["flight"] is None)


def test_what_is_sent_is_bounded_redacted_and_carries_tool_output_only_once_allowed(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    long_output = "x" * 5000 + f" token={SECRET} " + "tail-of-the-check-output 12 passed"
    server = _serve(serve, builder_for, tmp_path, output=long_output)
    assert press(server, allow=True).status_code == 202
    wait_for(server, _stored)
    first = calls(tmp_path / "bin", "claude")[-1]
    assert first["argv"] == [
        "-p",
        "--output-format",
        "text",
        "--tools",
        "",
        "--permission-mode",
        "plan",
        "--strict-mcp-config",
        "--no-session-persistence",
    ]
    assert "check ran" not in first["prompt"] and "/w/proj/src/retry.py" not in first["prompt"], (
        "no tool output without consent"
    )
    assert "tool output was not sent" in first["prompt"]
    assert "1. tests pass" in first["prompt"] and "GOAL: Fix the retry test" in first["prompt"]
    assert Path(first["cwd"]).name.startswith("cargento-reading-"), "run from an empty scratch folder"
    assert press(server, allow=True, tool_output=True).status_code == 202
    wait_for(server, lambda d: session_of(d)["attempt_count"] == 2 and session_of(d)["flight"] is None)
    second = calls(tmp_path / "bin", "claude")[-1]["prompt"]
    assert "check ran: pytest tests/test_retry.py" in second
    assert "file written (Edit): /w/proj/src/retry.py" in second
    assert SECRET not in second, "redacted"
    tail = second.split("output ends: ", 1)[1].splitlines()[0]
    assert len(tail) <= 180 and tail.endswith("12 passed")
    assert len(second.encode()) <= 16_384


def test_a_huge_account_is_cut_to_16384_bytes(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    now = time.time()
    session = store.session(SID)
    session.prompt("run the checks", now - 300)
    for i in range(200):
        check = session.tool("Bash", now - 290 + i, input={"command": f"pytest -k case_{i} " + "y" * 200})
        session.result(check, now - 290 + i, output="z" * 400)
    server = serve(
        builder_for([("claude", claude)], store.home, env={"PATH": str(fake_bin(tmp_path / "bin"))}),
        features=FEATURE,
        state_dir=tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)
    assert press(server, allow=True, tool_output=True).status_code == 202
    wait_for(server, _stored)
    sent = calls(tmp_path / "bin", "claude")[-1]["prompt"]
    assert len(sent.encode()) <= 16_384
    assert "older entries were left out" in sent and "case_199" in sent and "case_0 " not in sent, "the newest are kept"


@pytest.mark.parametrize(
    ("mode", "detail"),
    [
        ("fail", "exited with status 3"),
        ("garbage", "the reply was not a reading of each line"),
        ("hang", "did not answer within 1 seconds"),
    ],
)
def test_a_failed_request_is_recorded_unconfirmed_counts_and_is_never_retried(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any, mode: str, detail: str
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    _ext(server).readings.timeout_s = 1.0
    set_mode(tmp_path / "bin", mode)
    assert press(server, allow=True).status_code == 202
    doc = wait_for(server, _stored)
    attempt = session_of(doc)["attempts"][-1]
    assert attempt["ending"] == "failed" and detail in attempt["detail"]
    assert "could not be confirmed" in attempt["detail"]
    assert attempt["spent"] is True and doc["budget"]["used"] == 1, "failed attempts are not refunded"
    assert session_of(doc)["readings"] == []
    time.sleep(1.5)
    assert len(calls(tmp_path / "bin", "claude")) == 1, "never retried automatically"


def test_one_call_in_flight_per_session_409_and_cancel_records_a_counted_attempt(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    set_mode(tmp_path / "bin", "hang")
    assert press(server, allow=True).status_code == 202
    doc = wait_for(server, lambda d: bool(session_of(d).get("flight") and session_of(d)["flight"]["sent"]))
    assert session_of(doc)["flight"]["step"] == 1
    second = press(server)
    assert second.status_code == 409 and second.json()["reason"] == "in-flight"
    assert len(calls(tmp_path / "bin", "claude")) == 1, "a second press starts nothing"
    assert post(server, "/api/reading/cancel", {"harness": "claude", "sid": SID}).json() == {"cancelled": True}
    doc = wait_for(server, _stored)
    attempt = session_of(doc)["attempts"][-1]
    assert attempt["ending"] == "cancelled" and attempt["spent"] is True
    assert doc["budget"]["used"] == 1, "a cancelled call that was sent still counts"


def test_a_cancel_before_anything_was_sent_spends_nothing(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cargento_web.observer import account

    real = account.build_account
    gate = __import__("threading").Event()

    def slow(*a: Any, **kw: Any) -> Any:
        gate.wait(10)
        return real(*a, **kw)

    monkeypatch.setattr("cargento_web.observer.service.build_account", slow)
    server = _serve(serve, builder_for, tmp_path)
    assert press(server, allow=True).status_code == 202
    assert observer_doc(server)["budget"]["used"] == 1, "reserved"
    assert post(server, "/api/reading/cancel", {"harness": "claude", "sid": SID}).json() == {"cancelled": True}
    gate.set()
    doc = wait_for(server, _stored)
    attempt = session_of(doc)["attempts"][-1]
    assert attempt["ending"] == "cancelled" and attempt["spent"] is False
    assert doc["budget"]["used"] == 0 and calls(tmp_path / "bin", "claude") == []


def test_at_the_rolling_cap_429_with_its_retry_time(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    state = tmp_path / "state"
    state.mkdir()
    oldest = datetime.now(UTC) - timedelta(hours=23)
    spent = [(oldest + timedelta(minutes=i)).isoformat() for i in range(12)]
    (state / BUDGET_FILE).write_text(json.dumps({"version": 1, "spent": spent}))
    server = _serve(serve, builder_for, tmp_path, state=state)
    answer = press(server, allow=True)
    assert answer.status_code == 429
    body = answer.json()
    assert datetime.fromisoformat(body["retry_at"]) == oldest + timedelta(hours=24)
    assert 3500 <= int(answer.headers["Retry-After"]) <= 3601
    assert calls(tmp_path / "bin", "claude") == []


def test_no_annotated_session_by_that_name_is_200_produced_false(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    answer = press(server, sid="99999999-9999-4999-8999-999999999999", allow=True)
    assert answer.status_code == 200 and answer.json()["produced"] is False
    assert observer_doc(server)["budget"]["used"] == 0


def test_turn_off_readings_revokes_and_forget_clears_permission_but_not_the_budget(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    assert press(server, allow=True).status_code == 202
    wait_for(server, _stored)
    off = post(server, "/api/reading", {"consent": "off", "press": True, "observer_model": 1})
    assert off.status_code == 200 and off.json()["consent"] == "off"
    assert press(server).status_code == 403, "revoked"
    assert press(server, allow=True).status_code == 202
    wait_for(server, lambda d: session_of(d)["attempt_count"] == 2 and session_of(d)["flight"] is None)
    server.stop()
    said = forget(tmp_path / "state")
    assert said[0] == f"cleared reading permission and goal summary permission ({tmp_path / 'state' / CONSENT_FILE})"
    assert not (tmp_path / "state" / CONSENT_FILE).exists()
    assert len(json.loads((tmp_path / "state" / BUDGET_FILE).read_text())["spent"]) == 2, (
        "spend timestamps survive --forget"
    )


def test_a_departure_is_published_with_its_time_and_a_later_direction_withholds_it(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    set_mode(tmp_path / "bin", "departs")
    assert press(server, allow=True).status_code == 202
    doc = wait_for(server, _stored)
    s = session_of(doc)
    assert s["readings"][-1]["departed"] is True and s["departed_at"] == s["readings"][-1]["at"]
    assert s["departed"] is True and s["departed_revision"] == 1
    assert s["asked"] and s["conflict"] == []
    words.words[("claude", OTHER)] = intent(OTHER, saved=datetime.now(UTC) - timedelta(hours=1))
    other = press(server, sid=OTHER)
    assert other.status_code == 202
    doc = wait_for(
        server, lambda d: bool(session_of(d, OTHER).get("attempts")) and session_of(d, OTHER)["flight"] is None
    )
    o = session_of(doc, OTHER)
    assert o["conflict"] and o["conflict"][0]["text"] == "make the retry test pass", "the prompt came after the save"
    assert o["readings"][-1]["withheld"] is True and o["departed_at"] is None
    assert [r["verdict"] for r in o["readings"][-1]["rows"]] == ["withheld"], (
        "no departure while a later direction is unsettled"
    )


def test_a_pi_reading_sends_the_work_results_of_the_active_branch_only(
    serve: Any, builder_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cargento_harness_codex import plugin as codex
    from cargento_harness_pi import plugin as pi
    from cargento_harness_pi.fixtures import PiStore

    sid = "5f0c0000-0000-4000-8000-000000000001"
    held = FakeIntents({("pi", sid): attrs.evolve(intent(), harness="pi", sid=sid)})
    monkeypatch.setattr(observer_module, "AnnotatedIntents", lambda folder, off: held)
    now = time.time()
    store = PiStore(tmp_path / "home")
    session = store.session(sid, cwd="/w/proj", at=now - 120)
    start = session.prompt("fix the flaky test", now - 110)
    abandoned = session.tool("bash", now - 100, arguments={"command": "rm -rf build"})
    session.tool_result(abandoned, "bash", "removed the build folder", now - 99)
    session.branch(start)
    call = session.tool("bash", now - 90, arguments={"command": "npm test"})
    session.tool_result(call, "bash", "Tests: 31 passed, 31 total", now - 89)
    session.reply("Done.", now - 80)
    server = serve(
        builder_for([("pi", pi), ("codex", codex)], store.home, env={"PATH": str(fake_bin(tmp_path / "bin"))}),
        features=FEATURE,
        state_dir=tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)
    answer = post(
        server,
        "/api/reading",
        {
            "harness": "pi",
            "sid": sid,
            "provider": "codex",
            "press": True,
            "observer_model": 1,
            "allow": True,
            "tool_output": True,
        },
    )
    assert answer.status_code == 202, answer.text
    wait_for(server, lambda d: bool((d["sessions"].get(f"pi/{sid}") or {}).get("attempts")))
    sent = calls(tmp_path / "bin", "codex")[-1]["prompt"]
    assert "work result: bash npm test — output ends: Tests: 31 passed, 31 total" in sent
    assert "rm -rf build" not in sent, "a sibling branch is not the session's work"
