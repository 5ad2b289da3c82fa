"""Shared parts of the observer tests: fake ``codex``/``claude`` executables on PATH, a real
Claude Code store with one session, words to read against, and HTTP helpers."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from cargento_web.observer.intents import Intent

SID = "11111111-1111-4111-8111-111111111111"
OTHER = "22222222-2222-4222-8222-222222222222"
SECRET = "sk-ant-api03-" + "Q" * 48

#: A fake provider: records what it was sent (argv, stdin, cwd), then behaves as the file
#: ``mode`` beside it says: consistent, departs, fail, hang, garbage (and, for a goal summary's
#: prompt, long: a summary over 240 characters).
FAKE = """#!{python}
import json, os, pathlib, sys, time
here = pathlib.Path(__file__).resolve().parent
name = pathlib.Path(__file__).name
prompt = sys.stdin.read()
with open(here / (name + ".calls"), "a") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "prompt": prompt, "cwd": os.getcwd(), "pid": os.getpid()}}) + "\\n")
mode_file = here / "mode"
mode = mode_file.read_text().strip() if mode_file.exists() else "consistent"
if mode == "hang":
    time.sleep(600)
if mode == "fail":
    sys.exit(3)
if mode == "garbage":
    print("Looks fine to me!")
    sys.exit(0)
if "PROMPTS (from a" in prompt:
    summary = "Make the retry test pass " + "and more " * 40 if mode == "long" else "Make the retry test pass without new dependencies"
    print("Here is the goal:", json.dumps({{"summary": summary}}))
    sys.exit(0)
lines = prompt.split("LINES TO READ:\\n", 1)[1].split("\\n\\n", 1)[0].splitlines()
verdict = "departs" if mode == "departs" else "consistent"
print(json.dumps({{"lines": [{{"n": i, "verdict": verdict, "evidence": "the account says so"}} for i in range(1, len(lines) + 1)]}}))
"""


def fake_bin(folder: Path, names: Sequence[str] = ("codex", "claude")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = folder / name
        path.write_text(FAKE.format(python=sys.executable))
        path.chmod(0o755)
    return folder


def set_mode(folder: Path, mode: str) -> None:
    (folder / "mode").write_text(mode)


def calls(folder: Path, name: str) -> list[dict[str, Any]]:
    path = folder / f"{name}.calls"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


class FakeIntents:
    """Words held in memory, for tests that do not exercise the annotation store itself."""

    def __init__(self, words: Mapping[tuple[str, str], Intent] | None = None, closed: str | None = None) -> None:
        self.words = dict(words or {})
        self.why = closed
        self.recorded: list[tuple[str, str, dict[str, Any]]] = []

    def closed(self) -> str | None:
        return self.why

    def intent(self, harness: str, sid: str) -> Intent | None:
        return self.words.get((harness, sid))

    def every(self) -> list[Intent]:
        return list(self.words.values())

    def record(self, harness: str, sid: str, reading: Mapping[str, Any]) -> bool:
        self.recorded.append((harness, sid, dict(reading)))
        return True


def intent(
    sid: str = SID,
    *,
    goal: str = "Fix the retry test",
    lines: Sequence[str] = ("tests pass",),
    saved: datetime | None = None,
) -> Intent:
    return Intent(
        harness="claude",
        sid=sid,
        goal=goal,
        lines=tuple(lines),
        revision=1,
        unsettled_after=saved or datetime.now(UTC),
    )


def claude_home(root: Path, *, output: str = "12 passed", sessions: Sequence[str] = (SID,)) -> Path:
    """A real Claude Code store: each session ran one check and wrote one file."""
    from cargento_harness_claude.fixtures import ClaudeStore

    store = ClaudeStore(root / "home")
    now = time.time()
    for sid in sessions:
        session = store.session(sid)
        session.prompt("make the retry test pass", now - 120)
        check = session.tool("Bash", now - 100, input={"command": "pytest tests/test_retry.py"})
        session.result(check, now - 95, output=output)
        write = session.tool(
            "Edit", now - 90, input={"file_path": "/w/proj/src/retry.py", "old_string": "a", "new_string": "b"}
        )
        session.result(write, now - 89, output="edited")
    return store.home


def post(server: Any, path: str, body: object, **headers: str) -> httpx.Response:
    sent = {"Origin": server.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json", **headers}
    return httpx.post(server.url + path, headers=sent, content=json.dumps(body), timeout=10)


def press(server: Any, sid: str = SID, *, provider: str = "claude", **extra: Any) -> httpx.Response:
    return post(
        server,
        "/api/reading",
        {"harness": "claude", "sid": sid, "provider": provider, "press": True, "observer_model": 1, **extra},
    )


def ask_summary(server: Any, sid: str = SID, *, provider: str | None = "codex", **extra: Any) -> httpx.Response:
    return post(
        server,
        "/api/summary",
        {"harness": "claude", "sid": sid, "provider": provider, "press": True, "observer_model": 1, **extra},
    )


def observer_doc(server: Any) -> dict[str, Any]:
    doc: dict[str, Any] = httpx.get(server.url + "/api/data", timeout=10).json()["observer"]
    return doc


def wait_for(server: Any, test: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    doc = observer_doc(server)
    while time.monotonic() < deadline:
        doc = observer_doc(server)
        if test(doc):
            return doc
        time.sleep(0.1)
    raise AssertionError(f"the observer document never got there: {json.dumps(doc.get('sessions'))[:4000]}")


def session_of(doc: Mapping[str, Any], sid: str = SID) -> dict[str, Any]:
    found: dict[str, Any] = doc["sessions"].get(f"claude/{sid}") or {}
    return found
