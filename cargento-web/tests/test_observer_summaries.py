"""``POST /api/summary`` end to end: goal summaries under ``--observer-model`` only, through a fake
``codex`` on PATH that records what it was sent; every status over HTTP, the permission kept
apart from reading permission both ways, the shared budget, one model call per session, and
``--forget``."""

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
from cargento_web.observer.sidecars import Sidecars
from cargento_web.observer.summaries import build_summary_prompt, parse_summary


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
SID, SECRET = kit.SID, kit.SECRET
ON = Options(observer_model=True)
CODEX_ARGV = ["exec", "--sandbox", "read-only", "--skip-git-repo-check", "--ephemeral", "--color", "never", "-"]


@pytest.fixture
def words(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    held = kit.FakeIntents({("claude", SID): kit.intent()})
    monkeypatch.setattr(observer_module, "AnnotatedIntents", lambda folder, off: held)
    yield held


def _serve(
    serve: Any,
    builder_for: Any,
    tmp_path: Path,
    *,
    options: Options | None = ON,
    bin_dir: Path | None = None,
    home: Path | None = None,
    state: Path | None = None,
) -> Any:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_codex import plugin as codex

    home = home or kit.claude_home(tmp_path)
    env = {"PATH": str(bin_dir if bin_dir is not None else kit.fake_bin(tmp_path / "bin"))}
    server = serve(
        builder_for([("claude", claude), ("codex", codex)], home, env=env),
        features=["cargento_web.observer"],
        options=options,
        state_dir=state or tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)  # the first board
    return server


def _settled(count: int) -> Any:
    def test(doc: dict[str, Any]) -> bool:
        s = kit.session_of(doc)
        return s.get("summary_attempt_count") == count and s.get("summary_flight") is None

    return test


def _codex_calls(tmp_path: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = kit.calls(tmp_path / "bin", "codex")
    return found


def test_the_guard_the_cap_on_the_body_and_its_shape(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    assert httpx.get(server.url + "/api/summary", timeout=5).status_code == 405
    assert kit.post(server, "/api/summary", {"press": True}, Origin="http://evil.example").status_code == 403
    assert kit.post(server, "/api/summary", {"press": True}, **{"Sec-Fetch-Mode": "navigate"}).status_code == 403
    assert kit.post(server, "/api/summary", {"press": True, "pad": "x" * 12_300}).status_code == 413
    assert kit.post(server, "/api/summary", {"harness": "claude", "sid": SID}).status_code == 400
    assert kit.post(server, "/api/summary", [1]).status_code == 400
    assert _codex_calls(tmp_path) == []


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (Options(), "summaries-off"),
        (Options(observer_model=False), "model-off"),
        (Options(observer_model=True, no_annotations=True), "annotations-off"),
    ],
)
def test_refused_for_the_run_with_503(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any, options: Options, reason: str
) -> None:
    server = _serve(serve, builder_for, tmp_path, options=options)
    answer = kit.ask_summary(server, allow=True)
    assert answer.status_code == 503 and answer.json()["reason"] == reason
    assert not (tmp_path / "state" / CONSENT_FILE).exists(), "nothing was saved"
    share = kit.observer_doc(server).get("summaries")
    if share is not None:  # under --no-annotations the observer publishes only that it is off
        assert share["offered"] is False and share["reason_key"] == reason
    if reason == "summaries-off":
        assert "--observer-model" in answer.json()["error"]


def test_unavailable_permission_storage_is_503(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    state = tmp_path / "state"
    (state / CONSENT_FILE).mkdir(parents=True)
    server = _serve(serve, builder_for, tmp_path, state=state)
    answer = kit.ask_summary(server, allow=True)
    assert answer.status_code == 503 and answer.json()["reason"] == "permission-storage"


def test_no_provider_offering_summaries_is_503_with_the_route_and_its_reason(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    only_claude = kit.fake_bin(tmp_path / "bin", names=("claude",))
    server = _serve(serve, builder_for, tmp_path, bin_dir=only_claude)
    answer = kit.ask_summary(server, allow=True)
    assert answer.status_code == 503
    body = answer.json()
    assert body["reason"] == "no-provider" and body["route"]["provider"] is None
    assert "the Codex CLI (codex) was not found on PATH" in body["route"]["reason"]
    share = kit.observer_doc(server)["summaries"]
    assert share["routes"]["claude"]["reason"] == body["route"]["reason"], "the page shows the same reason"
    assert kit.observer_doc(server)["routes"]["claude"]["provider"] == "claude", "readings still have their reader"


def test_provider_changed_is_409_and_nothing_is_saved_or_spent(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    answer = kit.ask_summary(server, provider="claude", allow=True)
    assert answer.status_code == 409
    assert answer.json()["reason"] == "provider-changed" and answer.json()["route"]["provider"] == "codex"
    assert kit.ask_summary(server, provider=None).json()["reason"] == "provider-changed"
    assert not (tmp_path / "state" / CONSENT_FILE).exists() and not (tmp_path / "state" / BUDGET_FILE).exists()


def test_reading_permission_does_not_allow_a_summary(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    # allow readings by both providers (a press for a session with no words saves the permission)
    for provider, sid in (("claude", kit.OTHER), ("codex", kit.OTHER)):
        kit.post(
            server,
            "/api/reading",
            {
                "harness": "codex" if provider == "codex" else "claude",
                "sid": sid,
                "provider": provider,
                "press": True,
                "observer_model": 1,
                "allow": True,
                "tool_output": True,
            },
        )
    kept = json.loads((tmp_path / "state" / CONSENT_FILE).read_text())
    assert set(kept["providers"]) == {"claude", "codex"} and kept["summaries"] == {}
    refused = kit.ask_summary(server)
    assert refused.status_code == 403 and refused.json()["reason"] == "consent"
    disclosure = refused.json()["disclosure"]
    assert disclosure["destination"].startswith("OpenAI") and disclosure["command"].startswith("codex exec")
    assert "twelve a day" in disclosure["budget"]
    assert _codex_calls(tmp_path) == [] and kit.observer_doc(server)["budget"]["used"] == 0


def test_summary_permission_does_not_allow_a_reading(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    assert kit.ask_summary(server, allow=True).status_code == 202
    kit.wait_for(server, _settled(1))
    kept = json.loads((tmp_path / "state" / CONSENT_FILE).read_text())
    assert set(kept["summaries"]) == {"codex"} and kept["providers"] == {}
    refused = kit.press(server)
    assert refused.status_code == 403 and refused.json()["reason"] == "consent", "summary consent allows no reading"
    assert kit.observer_doc(server)["consent"]["summaries"] is True


def test_a_summary_is_proposed_from_the_prompts_only_bounded_and_redacted(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(tmp_path / "home")
    now = time.time()
    session = store.session(SID)
    session.prompt(f"make the retry test pass token={SECRET} " + "w" * 30_000, now - 120)
    check = session.tool("Bash", now - 100, input={"command": "pytest tests/test_retry.py"})
    session.result(check, now - 95, output="secret-check-output 12 passed")
    server = _serve(serve, builder_for, tmp_path, home=store.home)
    started = kit.ask_summary(server, allow=True)
    assert started.status_code == 202, started.text
    assert started.json()["flight"]["steps"] == [
        "Preparing what is sent",
        "Waiting for the Codex CLI",
        "Checking the reply",
    ]
    doc = kit.wait_for(server, _settled(1))
    summary = kit.session_of(doc)["summary"]
    assert summary["text"] == "Make the retry test pass without new dependencies"
    assert summary["provider"] == "codex" and summary["at"]
    assert kit.session_of(doc)["summary_attempts"][-1]["ending"] == "stored"
    assert doc["budget"]["used"] == 1, "a summary spends the same twelve a day as the readings"
    sent = _codex_calls(tmp_path)
    assert len(sent) == 1 and sent[0]["argv"] == CODEX_ARGV
    prompt = sent[0]["prompt"]
    assert len(prompt.encode()) <= 16_384
    assert SECRET not in prompt and "make the retry test pass" in prompt, "redacted"
    assert "pytest" not in prompt and "secret-check-output" not in prompt, "no tool or work output"
    assert Path(sent[0]["cwd"]).name.startswith("cargento-reading-")
    record = json.loads((tmp_path / "state" / "observer" / f"claude_{SID}.json").read_text())
    assert record["summaries"][-1]["text"] == summary["text"], "kept in the observer sidecar"
    # the board clips a prompt already; a longer one (another harness's) is cut to the bound too
    published = server.extensions.items[0].session("claude", SID)
    longer = attrs.evolve(published.instruction, text=f"use {SECRET} " + "ü" * 40_000)
    cut = build_summary_prompt(attrs.evolve(published, instruction=longer))
    assert cut is not None and cut.size <= 16_384 and cut.left_out > 0 and SECRET not in cut.text
    assert "was left out to keep within 16384 bytes" in cut.text


@pytest.mark.parametrize(
    ("mode", "detail"),
    [("fail", "exited with status 3"), ("garbage", "not one line of at most 240"), ("long", "not one line")],
)
def test_a_failed_summary_is_unconfirmed_counts_and_is_never_retried(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any, mode: str, detail: str
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", mode)
    assert kit.ask_summary(server, allow=True).status_code == 202
    doc = kit.wait_for(server, _settled(1))
    last = kit.session_of(doc)["summary_attempts"][-1]
    assert last["ending"] == "failed" and detail in last["detail"] and "could not be confirmed" in last["detail"]
    assert last["spent"] is True and doc["budget"]["used"] == 1
    assert kit.session_of(doc)["summary"] is None
    time.sleep(1.0)
    assert len(_codex_calls(tmp_path)) == 1, "never retried"


def test_one_model_call_per_session_and_cancel(serve: Any, builder_for: Any, tmp_path: Path, words: Any) -> None:
    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", "hang")
    assert kit.ask_summary(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool((kit.session_of(d).get("summary_flight") or {}).get("sent")))
    again = kit.ask_summary(server)
    assert again.status_code == 409 and again.json()["reason"] == "in-flight"
    reading = kit.press(server, allow=True)
    assert reading.status_code == 409 and reading.json()["reason"] == "in-flight", "a reading waits for the summary"
    assert kit.calls(tmp_path / "bin", "claude") == []
    assert kit.post(server, "/api/summary/cancel", {"harness": "claude", "sid": SID}).json()["cancelled"] is True
    doc = kit.wait_for(server, _settled(1))
    last = kit.session_of(doc)["summary_attempts"][-1]
    assert last["ending"] == "cancelled" and last["spent"] is True
    kit.set_mode(tmp_path / "bin", "hang")
    assert kit.press(server).status_code == 202
    kit.wait_for(server, lambda d: bool((kit.session_of(d).get("flight") or {}).get("sent")))
    assert kit.ask_summary(server).status_code == 409, "a summary waits for the reading"
    kit.post(server, "/api/reading/cancel", {"harness": "claude", "sid": SID})


def test_at_the_shared_rolling_cap_429_with_its_retry_time(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    oldest = datetime.now(UTC) - timedelta(hours=23)
    spent = [(oldest + timedelta(minutes=i)).isoformat() for i in range(12)]
    (state / BUDGET_FILE).write_text(json.dumps({"version": 1, "spent": spent}))
    server = _serve(serve, builder_for, tmp_path, state=state)
    answer = kit.ask_summary(server, allow=True)
    assert answer.status_code == 429 and answer.json()["reason"] == "cap"
    assert datetime.fromisoformat(answer.json()["retry_at"]) == oldest + timedelta(hours=24)
    assert 3500 <= int(answer.headers["Retry-After"]) <= 3601
    assert _codex_calls(tmp_path) == []


def test_a_session_not_on_the_board_is_200_produced_false(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    answer = kit.ask_summary(server, sid="99999999-9999-4999-8999-999999999999", allow=True)
    assert answer.status_code == 200 and answer.json()["produced"] is False
    assert kit.observer_doc(server)["budget"]["used"] == 0 and _codex_calls(tmp_path) == []


def test_turning_summaries_off_leaves_readings_alone_and_forget_clears_them(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    assert kit.ask_summary(server, allow=True).status_code == 202
    kit.wait_for(server, _settled(1))
    assert kit.press(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: kit.session_of(d)["attempt_count"] == 1 and kit.session_of(d)["flight"] is None)
    off_readings = kit.post(server, "/api/reading", {"consent": "off", "press": True, "observer_model": 1})
    assert off_readings.status_code == 200
    assert kit.ask_summary(server).status_code == 202, "Turn off readings leaves summary permission alone"
    kit.wait_for(server, _settled(2))
    off = kit.post(server, "/api/summary", {"consent": "off", "press": True, "observer_model": 1})
    assert off.status_code == 200 and off.json()["consent"] == "off"
    assert kit.ask_summary(server).status_code == 403, "revoked"
    assert kit.ask_summary(server, allow=True).status_code == 202
    kit.wait_for(server, _settled(3))
    server.stop()
    said = forget(tmp_path / "state")
    assert said[0].startswith("cleared reading permission") and "goal summary permission" in said[0]
    assert not (tmp_path / "state" / CONSENT_FILE).exists()
    assert len(json.loads((tmp_path / "state" / BUDGET_FILE).read_text())["spent"]) == 4, "the budget is kept"
    again = _serve(serve, builder_for, tmp_path / "again", state=tmp_path / "state")
    assert kit.ask_summary(again).status_code == 403, "--forget cleared summary permission"


def test_a_summary_a_restart_cut_short_is_recorded_as_interrupted(tmp_path: Path) -> None:
    sidecars = Sidecars(tmp_path)
    sidecars.update(
        "claude",
        SID,
        lambda d: d.update(summary_inflight={"attempt": 1, "provider": "codex", "started_at": "x", "reserved": "y"}),
    )
    again = Sidecars(tmp_path)
    again.load()
    assert again.recover() == [("claude", SID)]
    record = again.get("claude", SID)
    assert record is not None and record["summary_inflight"] is None and record["summary_count"] == 1
    assert record["summary_attempts"][-1]["ending"] == "interrupted" and record["summary_attempts"][-1]["spent"]
    assert "goal summary" in record["summary_attempts"][-1]["detail"] and record["attempts"] == []


def test_parse_summary_takes_one_redacted_line_and_refuses_the_rest() -> None:
    assert parse_summary('{"summary": "  Fix the\\nretry test "}') == "Fix the retry test"
    assert parse_summary('Sure: {"summary": "use ' + SECRET + '"}') == parse_summary(
        '{"summary": "use ' + SECRET + '"}'
    )
    assert SECRET not in (parse_summary('{"summary": "use ' + SECRET + '"}') or "")
    for bad in ("no json", '{"summary": ""}', '{"summary": 3}', "[1]", '{"summary": "' + "x" * 241 + '"}'):
        assert parse_summary(bad) is None


def test_quota_consent_authorises_neither_a_reading_nor_a_summary(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    from cargento_harness_claude import plugin as claude
    from cargento_harness_codex import plugin as codex

    env = {"PATH": str(kit.fake_bin(tmp_path / "bin"))}
    server = serve(
        builder_for([("claude", claude), ("codex", codex)], kit.claude_home(tmp_path), env=env),
        features=["cargento_web.capacity", "cargento_web.observer"],
        options=ON,
        state_dir=tmp_path / "state",
    )
    httpx.get(server.url + "/api/data", timeout=10)
    quota = kit.post(server, "/api/capacity/consent", {"consent": "on"})
    assert quota.status_code == 200 and quota.json()["consent"] == "on"
    reading, summary = kit.press(server), kit.ask_summary(server)
    assert (reading.status_code, reading.json()["reason"]) == (403, "consent")
    assert (summary.status_code, summary.json()["reason"]) == (403, "consent")
    assert kit.calls(tmp_path / "bin", "claude") == [] and _codex_calls(tmp_path) == []


def test_a_summary_the_server_stops_mid_call_is_recorded_interrupted(
    serve: Any, builder_for: Any, tmp_path: Path, words: Any
) -> None:
    server = _serve(serve, builder_for, tmp_path)
    kit.set_mode(tmp_path / "bin", "hang")
    assert kit.ask_summary(server, allow=True).status_code == 202
    kit.wait_for(server, lambda d: bool((kit.session_of(d).get("summary_flight") or {}).get("sent")))
    server.stop()
    again = _serve(serve, builder_for, tmp_path / "again", state=tmp_path / "state")
    record = kit.session_of(kit.observer_doc(again))
    last = record["summary_attempts"][-1]
    assert last["ending"] == "interrupted" and last["spent"] is True and "could not be confirmed" in last["detail"]
    assert record["summary_flight"] is None and record["summary"] is None
    assert kit.observer_doc(again)["budget"]["used"] == 1, "not refunded"
