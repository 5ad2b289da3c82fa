"""Synthetic stores for the benchmark, written with each harness's own store builders.

``populate(home, per_harness, now)`` writes *per_harness* live sessions for every harness (all
active in the display window) and returns one :class:`Live` per session: its harness, the file
a watcher would report, and ``append(at)`` which writes one more record the way the harness
would (a response with output tokens).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import attrs
from cargento_harness_antigravity.fixtures import AntigravityStore
from cargento_harness_claude.fixtures import ClaudeStore
from cargento_harness_codex.fixtures import CodexStore
from cargento_harness_copilot.fixtures import CopilotStore
from cargento_harness_cursor.fixtures import CursorChat
from cargento_harness_droid.fixtures import DroidSession
from cargento_harness_gemini.fixtures import GeminiStore
from cargento_harness_goose.fixtures import GooseStore
from cargento_harness_opencode.fixtures import OpenCodeStore
from cargento_harness_pi.fixtures import PiStore

HARNESSES = ("claude", "codex", "pi", "gemini", "antigravity", "copilot", "opencode", "cursor", "goose", "droid")


@attrs.define
class Live:
    harness: str
    path: Path
    append: Callable[[datetime], None]
    session_id: str = ""


def _cwd(home: Path, i: int) -> str:
    d = home / "work" / f"org{i % 7}" / f"repo{i}"
    d.mkdir(parents=True, exist_ok=True)
    return str(d)


def populate(home: Path, per_harness: int, now: datetime, *, seed: int = 7) -> list[Live]:
    rng = random.Random(seed)
    out: list[Live] = []
    t0 = now - timedelta(minutes=30)

    def at(minutes: float) -> datetime:
        return t0 + timedelta(minutes=minutes, seconds=rng.random())

    claude = ClaudeStore(home)
    codex = CodexStore(home)
    pi = PiStore(home)
    gemini = GeminiStore(home)
    agy = AntigravityStore(home)
    copilot = CopilotStore(home)
    opencode = OpenCodeStore(home)
    goose = GooseStore(home)
    for i in range(per_harness):
        cwd = _cwd(home, i)
        c = claude.session(cwd=cwd)
        c.prompt(f"Refactor module {i}", at=at(1))
        c.respond(at(2), text="Looking.", tools=[("Bash", {"command": "pytest -q"})], tokens=120)
        out.append(Live("claude", c.path, lambda t, c=c: c.respond(t, text="More.", tokens=40), c.session_id))

        x = codex.session(cwd=cwd, at=at(0))
        x.prompt(f"Fix bug {i}", at=at(1))
        x.tool("shell", at(2))
        x.tokens(200, at(3))
        out.append(Live("codex", x.path, lambda t, x=x: x.tokens(40, t)))

        p = pi.session(cwd=cwd, at=at(0))
        p.prompt(f"Write docs {i}", at=at(1))
        p.reply("Working on it.", at(2), output=80)
        out.append(Live("pi", p.path, lambda t, p=p: p.reply("More.", t, output=40)))

        g = gemini.session(cwd=cwd, at=at(0))
        g.prompt(f"Explain {i}", at=at(1))
        g.reply("Sure.", at(2), output_tokens=60)
        out.append(Live("gemini", g.path, lambda t, g=g: g.reply("More.", t, output_tokens=40)))

        a = agy.conversation(f"conv-{i:04d}-{rng.getrandbits(32):08x}", at=at(0), workspace=cwd)
        a.prompt(f"Plan {i}", at(1))
        a.respond(at(2), output_tokens=90)
        out.append(Live("antigravity", a.path, lambda t, a=a: a.respond(t, output_tokens=40)))

        cp = copilot.session(cwd=cwd, at=at(0))
        cp.prompt(f"Review {i}", at(1))
        cp.tokens(70, at(2))
        out.append(Live("copilot", cp.folder / "events.jsonl", lambda t, cp=cp: cp.tokens(40, t)))

        o = opencode.session(cwd=cwd, at=at(0), title=f"OpenCode task {i}")
        o.prompt(f"Port {i}", at(1))
        o.reply(at(2))
        out.append(Live("opencode", opencode.path, lambda t, o=o: o.text("More.", t)))

        cu = CursorChat(home, created_at=at(0), workspace=cwd, name=f"Cursor chat {i}")
        cu.user(f"Tidy {i}", at(1))
        cu.assistant("Done tidying.", at(2))
        out.append(Live("cursor", cu.path, lambda t, cu=cu: cu.assistant("More.", t)))

        gs = goose.session(working_dir=cwd, created_at=at(0), name=f"Goose {i}")
        gs.prompt(f"Check {i}", at(1))
        gs.tokens(50, at(2))
        out.append(Live("goose", goose.path, lambda t, gs=gs: gs.tokens(40, t)))

        d = DroidSession.create(home, f"droid-{i:04d}-{rng.getrandbits(32):08x}", cwd=cwd, at=at(0), title=f"Droid {i}")
        d.prompt(f"Lint {i}", at(1))
        d.reply("Linting.", at(2))
        out.append(Live("droid", d.path, lambda t, d=d: d.reply("More.", t)))
    return out
