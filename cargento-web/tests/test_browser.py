"""Real-browser tests: Debian's Chromium through Playwright, a real uvicorn, fixture homes.

Rows come from real on-disk stores where a harness package ships a store builder or a golden
copy (Claude Code: a golden transcript; Copilot CLI: its store builder), and from scripted
in-memory harnesses for the readings no store here can produce on demand (tasks, subagents,
a long turn, an authority, a plugin fault).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from cargento import hookimpl
from cargento.models import (
    Discovery,
    Gate,
    HarnessContext,
    HarnessInfo,
    Instruction,
    LoopReading,
    ModelInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    Subagent,
    Task,
    TurnEvidence,
    Usage,
)
from cargento.testing.fakes import BrokenDiscover
from cargento.testing.homes import copy_golden

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Screenshots of each view of the scripted board, written to a temporary folder so running the
#: tests leaves the working tree as it was. The committed ones in docs/screenshots come from the
#: demo (CARGENTO_SCREENSHOTS=1 pytest cargento-web/tests/test_browser_demo_calm.py).
SHOTS = Path(tempfile.gettempdir()) / "cargento-screenshots"
CLAUDE_A = "claude-code-2.1.332/A-single-turn"

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    print(f"skipping the browser tests: {CHROMIUM} is absent (apt-get install chromium)")
    pytest.skip(f"{CHROMIUM} is absent and CI is unset", allow_module_level=True)


# -- a scripted harness for readings no fixture store produces on demand -----------------------

Script = Callable[[SessionRef, datetime], SessionReading]


class Scripted:
    """An in-memory harness whose sessions are functions of ``ctx.now``; mutable from a test."""

    def __init__(
        self,
        info: HarnessInfo,
        scripts: dict[str, Script],
        *,
        gates: dict[str, Gate] | None = None,
        models: dict[str, ModelInfo] | None = None,
        tokens: dict[str, int | None] | None = None,
    ) -> None:
        self.info = info
        self.scripts = scripts
        self.gates = gates or {}
        self.models = models or {}
        self.tokens = tokens or {}
        self.__name__ = f"scripted:{info.key}"

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return self.info

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        refs = tuple(
            SessionRef(harness=self.info.key, session_id=sid, path=f"/scripted/{sid}", modified_at=ctx.now)
            for sid in self.scripts
        )
        return Discovery(locations=(StoreLocation(path=f"/scripted/{self.info.key}", status="present"),), sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        return self.scripts[ref.session_id](ref, ctx.now)

    @hookimpl
    def gate_state(self, reading: SessionReading, ctx: HarnessContext) -> Gate | None:
        return self.gates.get(reading.ref.session_id)

    @hookimpl
    def model(self, reading: SessionReading, ctx: HarnessContext) -> ModelInfo | None:
        return self.models.get(reading.ref.session_id)

    @hookimpl
    def usage(self, reading: SessionReading, ctx: HarnessContext) -> Usage | None:
        if reading.ref.session_id not in self.tokens:
            return None
        return Usage(output_tokens_window=self.tokens[reading.ref.session_id])


def _ago(now: datetime, s: float) -> datetime:
    return now - timedelta(seconds=s)


def pi_harness() -> Scripted:
    def busy(ref: SessionRef, now: datetime) -> SessionReading:
        return SessionReading(
            ref=ref,
            title="Port the tokenizer",
            cwd="/home/dev/code/tokenizer",
            started_at=_ago(now, 1500),
            last_active_at=_ago(now, 3),
            last_tool="bash",
            turn=TurnEvidence(state="open", started_at=_ago(now, 16 * 60), completed_s=(1000.0, 1100.0, 1200.0)),
            tasks=(
                Task(
                    subject="Read the spec", status="completed", created_at=_ago(now, 1400), updated_at=_ago(now, 1200)
                ),
                Task(
                    subject="Write the lexer",
                    status="in_progress",
                    active_form="Writing the lexer",
                    created_at=_ago(now, 1100),
                ),
                Task(subject="Benchmark", status="pending", created_at=_ago(now, 1000)),
            ),
            subagents=(Subagent(name="scout", running=True, role="Explore"), Subagent(name="reviewer", running=False)),
            instruction=Instruction(text="port the tokenizer to rust", source="prompt", at=_ago(now, 1500)),
            missing=("output usage of one branch",),
        )

    return Scripted(
        HarnessInfo(
            key="pi",
            label="Pi",
            reports_waits=True,
            wait_coverage="Extension UI prompts in persisted sessions, through its adapter on 0.85.1.",
        ),
        {"pi-busy-0001": busy},
        models={"pi-busy-0001": ModelInfo(id="gpt-5.6-sol", authority="via Codex · gpt-5.6-sol")},
        tokens={"pi-busy-0001": 4200},
    )


def codex_harness() -> Scripted:
    def quick(ref: SessionRef, now: datetime) -> SessionReading:
        return SessionReading(
            ref=ref,
            title="Fix flaky test",
            cwd="/home/dev/code/api",
            started_at=_ago(now, 400),
            last_active_at=_ago(now, 2),
            turn=TurnEvidence(state="open", started_at=_ago(now, 60), completed_s=(100.0, 120.0, 140.0)),
            thinking=True,
            resume_command="codex resume codex-quick-0002",
            loop=LoopReading(kind="run", failures=4, successes=0, note="4 consecutive failed tool calls"),
        )

    def done(ref: SessionRef, now: datetime) -> SessionReading:
        return SessionReading(
            ref=ref,
            title="Release notes",
            cwd="/home/dev/code/api",
            started_at=_ago(now, 9000),
            last_active_at=_ago(now, 7200),
            turn=TurnEvidence(state="ended", ended_at=_ago(now, 7200)),
            resume_command="codex resume codex-done-0003",
        )

    return Scripted(
        HarnessInfo(
            key="codex",
            label="Codex",
            turn_end_observable=True,
            reports_waits=True,
            resumable=True,
            wait_coverage="Its bundled PermissionRequest hook, once events are installed.",
        ),
        {"codex-quick-0002": quick, "codex-done-0003": done},
        models={"codex-quick-0002": ModelInfo(id="gpt-5.6"), "codex-done-0003": ModelInfo(id="gpt-5.6")},
        tokens={"codex-quick-0002": 900, "codex-done-0003": None},
    )


# -- homes --------------------------------------------------------------------------------------


def claude_home(tmp_path: Path) -> tuple[Path, Path]:
    home, _truth = copy_golden(CLAUDE_A, tmp_path)
    ten_min_ago = time.time() - 600
    for path in home.rglob("*"):
        os.utime(path, (ten_min_ago, ten_min_ago))
    return home, next((home / ".claude" / "projects").rglob("*.jsonl"))


def append_prompt(transcript: Path, text: str) -> None:
    first = json.loads(transcript.read_text().splitlines()[0])
    now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": first.get("cwd"),
        "sessionId": first.get("sessionId") or transcript.stem,
        "version": "2.1.332",
        "gitBranch": "HEAD",
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": f"00000000-0000-4000-8000-{int(time.time() * 1000) % 10**12:012d}",
        "timestamp": now,
    }
    with open(transcript, "ab") as fh:
        fh.write(json.dumps(record).encode() + b"\n")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page_for(browser: Any) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def open_page(url: str, *, width: int = 1280, height: int = 800, notifications: bool = False) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        if notifications:
            context.grant_permissions(["notifications"], origin=url.split("/#")[0].rstrip("/"))
            context.add_init_script(
                "window.__shown = []; window.Notification = class { constructor(t, o) { window.__shown.push([t, o && o.body]); }"
                " static get permission() { return 'granted'; } static requestPermission() { return Promise.resolve('granted'); } };"
            )
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.errors = errors
        page.goto(url)
        page.wait_for_selector("main .row, main .empty, main .session-page", timeout=10_000)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def board_server(serve: Any, builder_for: Any, tmp_path: Path) -> Callable[..., Any]:
    """A server over Claude (golden copy), Copilot (store builder), scripted Pi and Codex, and a
    Goose plugin that faults; ``all_sessions`` so the golden session shows whatever its age."""
    from cargento_harness_claude import plugin as claude
    from cargento_harness_copilot import plugin as copilot
    from cargento_harness_copilot.fixtures import CopilotStore

    def start(**settings: Any) -> Any:
        home, transcript = claude_home(tmp_path)
        store = CopilotStore(home)
        t0 = time.time() - 120
        cop = store.session(cwd=str(home / "work" / "webapp"), at=t0)
        cop.prompt("add a login page", at=t0 + 1)
        call = cop.tool("bash", at=t0 + 2)
        cop.tool_done(call, at=t0 + 4)
        cop.end_turn(at=t0 + 5)
        pi, codex = pi_harness(), codex_harness()
        plugins = [
            ("claude", claude),
            ("copilot", copilot),
            ("pi", pi),
            ("codex", codex),
            ("goose", BrokenDiscover("goose", label="Goose")),
        ]
        values = {"all_sessions": True}
        values.update(settings)
        server = serve(builder_for(plugins, home), **values)
        server.transcript = transcript
        server.copilot = cop
        server.pi = pi
        server.codex = codex
        server.home = home
        return server

    return start


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def row(page: Any, key_prefix: str) -> Any:
    return page.locator(f"main li.row[data-key^='{key_prefix}']").first


# -- the tests ------------------------------------------------------------------------------------


def test_the_board_renders_each_harness(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    strip = page.locator(".strip li.harness")
    board = httpx.get(server.url + "/api/data").json()
    expected = [h["key"] for h in board["harnesses"]]
    assert strip.count() == len(expected) == 5, "the strip lists the board's harnesses, no fixed list"
    assert [strip.nth(i).get_attribute("data-harness") for i in range(5)] == expected
    for key in ("claude", "codex", "pi", "copilot"):
        assert "on" in page.locator(f".strip li[data-harness='{key}']").get_attribute("class")
    assert page.locator(".strip li[data-harness='gemini']").count() == 0, "a harness no plugin declares is not drawn"
    # Claude's plugin declares its mark; the scripted Pi declares none and gets one derived from its label.
    assert page.locator(".strip li[data-harness='claude'] svg text").text_content() == "CC"
    assert page.locator(".strip li[data-harness='pi'] svg text").text_content() == "PI"
    goose = page.locator(".strip li[data-harness='goose']")
    assert "fault" in goose.get_attribute("class") and "discover exploded" in goose.inner_text()

    claude_row = row(page, "claude:")
    assert claude_row.get_attribute("data-state") == "idle"
    assert "Idle" in claude_row.locator(".badge").inner_text()
    age = claude_row.locator(".age").get_attribute("title")
    assert "last active" in age and "ago" in age

    # The harness-wide caveat is said once, in the view's legend; the row carries a labelled mark.
    cop = row(page, "copilot:")
    assert "Read by scanning" not in cop.inner_text()
    assert cop.locator(".scan-mark").get_attribute("title") == "Read by scanning: no turn end can be observed here"
    assert "read by scanning" in cop.locator(".scan-mark .sr-only").inner_text()
    legend = page.locator("main .legend").inner_text()
    assert "read by scanning (" in legend and "GitHub Copilot CLI" in legend
    assert page.locator("main .legend").count() == 1
    assert cop.locator(".hname").inner_text() == "GitHub Copilot CLI"

    pi = row(page, "pi:pi-busy")
    assert pi.get_attribute("data-state") == "working"
    assert pi.locator(".detail").inner_text() == "Writing the lexer"
    # At rest a row is one line: tasks, pills and the instruction wait behind its toggle.
    assert pi.locator(".task").count() == 0 and pi.locator(".pill").count() == 0
    assert pi.locator(".line").evaluate("e => e.getBoundingClientRect().height") < 40
    toggle = pi.locator("button.more-btn")
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert pi.locator(".pill.run").inner_text().replace("\n", "") == "● scout, running"
    assert "no longer running" in pi.locator(".pill.done").inner_text()
    assert pi.locator(".task").count() == 3
    assert "via Codex · gpt-5.6-sol" in pi.locator(".model").inner_text()
    assert pi.locator(".rate").inner_text().startswith("420 tok/min")
    assert "“port the tokenizer to rust” — prompt, 25 min ago" in pi.locator(".instruction").inner_text()
    assert pi.locator(".more .turn [role=progressbar]").count() == 1
    assert pi.locator(".c-turn [role=progressbar]").count() == 1
    assert pi.locator(".long").first.get_attribute("title").startswith("This request has run")
    assert "15 min+" in pi.locator(".c-turn .long").inner_text()  # worded, not a bare glyph
    assert pi.locator(".c-turn .long").evaluate("e => getComputedStyle(e).color") == "rgb(227, 178, 90)"
    assert "Source not fully read: output usage of one branch" in pi.inner_text()

    done = row(page, "codex:codex-done")
    # An unknown figure is an empty slot, labelled for a screen reader and in its tooltip.
    assert done.locator(".rate").get_attribute("class").split() == ["rate", "empty-slot"]
    assert done.locator(".rate [aria-hidden]").inner_text().strip() == ""
    assert done.locator(".rate").get_attribute("title") == "output rate unmeasured"
    assert "output rate unmeasured" in done.locator(".rate").inner_text()
    quick = row(page, "codex:codex-quick")
    words = quick.locator(".c-turn").get_attribute("title")
    assert "est." in words and "remaining" in words
    assert quick.locator(".scan-mark").count() == 0

    # The header counts event-backed running sessions; this server has no event hub.
    assert page.locator(".counts .c-run").inner_text() == "0 event-backed running sessions"
    assert page.locator(".counts .c-run").get_attribute("title").startswith("2 more rows read Working")
    assert "2 subagents observed, 1 running" in page.locator(".counts").inner_text()
    assert page.errors == []
    shot(page, "sessions")


def wait_for_the_watch(server: Any) -> None:
    """The page's stream starts the store watch; a watch takes a moment to register, and a
    write made before it has is seen only by the slow timer (an hour here)."""
    deadline = time.monotonic() + 10
    while not any(server.app.state.live.watching) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)


def test_an_append_turns_a_row_working_without_a_reload(board_server: Any, page_for: Any) -> None:
    server = board_server(rescan_s=3600)  # only the file watcher can notice the append
    page = page_for(server.url + "/")
    page.evaluate("window.__sameDocument = true")
    claude_row = row(page, "claude:")
    assert claude_row.get_attribute("data-state") == "idle"
    wait_for_the_watch(server)
    append_prompt(server.transcript, "SCENARIO-A: and now say goodbye")
    # Only the file watcher can see it within the wait (the slow timer is an hour); how fast
    # it does is a benchmark figure (store_write_to_sse_ms), not this test's business.
    page.wait_for_selector("main li.row[data-key^='claude:'][data-state='working']", timeout=15_000)
    assert page.evaluate("window.__sameDocument") is True


def test_a_revision_announced_while_the_page_fetches_is_fetched_after_it(board_server: Any, page_for: Any) -> None:
    """The page's fetch of one revision is slow, and the store moves again meanwhile: the
    revision announced during the fetch is fetched once it is done. No heartbeat (60 s) and no
    slow timer (an hour) would otherwise bring it within the wait."""
    server = board_server(rescan_s=3600, heartbeat_s=60)
    page = page_for(server.url + "/")
    wait_for_the_watch(server)
    held: list[str] = []

    def hold(route: Any) -> None:
        if held:
            route.continue_()
            return
        answer = route.fetch()  # the board as it stands when the page asked
        held.append(route.request.url)
        server.copilot.wait(at=time.time() - 5, kind="shell", detail="rm -rf build")
        time.sleep(2.0)  # the new revision reaches the page while this answer is held
        route.fulfill(response=answer)

    page.route("**/api/data*", hold)
    append_prompt(server.transcript, "SCENARIO-R: one more thing")
    page.wait_for_selector("main li.row[data-key^='claude:'][data-state='working']", timeout=15_000)
    page.wait_for_selector("main li.row[data-key^='copilot:'][data-state='needs_input']", timeout=8_000)
    assert len(held) == 1


def test_a_needs_input_store_turns_the_row_red(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/#n=attention")
    before = int(page.locator(".att-count").inner_text())
    assert page.locator("a.blocks").count() == 0
    # A permission dialog opens in the Copilot session (written to its events.jsonl).
    wait_for_the_watch(server)
    server.copilot.wait(at=time.time() - 5, kind="shell", detail="rm -rf build")
    page.wait_for_selector(".attention li.needs[data-key^='copilot:']", timeout=5000)
    assert int(page.locator(".att-count").inner_text()) == before + 1
    assert page.locator("a.blocks").inner_text().startswith("1 block reported")
    item = page.locator(".attention li.needs[data-key^='copilot:']")
    assert "Needs input" in item.inner_text()
    assert "rm -rf build" not in page.content()  # Copilot never publishes which command
    shot(page, "attention")
    page.keyboard.press("s")
    # Attention's items are rows too (li.row.needs): wait for Sessions to replace them, or the
    # badge read below can land on an Attention item that the view switch has just detached
    # (a detached element's computed colour is '', as CI saw once).
    page.wait_for_selector("main li.row:not(.needs)[data-key^='copilot:']", timeout=5_000)
    red = page.locator("main li.row:not(.needs)[data-key^='copilot:']").first
    assert red.get_attribute("data-state") == "needs_input"
    color = red.locator(".badge").evaluate("e => getComputedStyle(e).color")
    assert color == "rgb(240, 107, 107)"
    page.locator("a.blocks").click()
    assert page.url.endswith("#n=attention")
    page.locator(".attention li.needs[data-key^='copilot:'] a.title").click()
    page.wait_for_selector(".session-page .question.big")
    order = page.evaluate("[...document.querySelectorAll('.session-page > *')].map(e => e.className.split(' ')[0])")
    assert order.index("question") < order.index("controls") < order.index("columns")  # the wait first
    assert "Waiting on you" in page.locator(".question.big").inner_text()


def test_attention_names_what_is_not_covered(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/#n=attention")
    text = page.locator(".attention").inner_text()
    assert "NEEDS YOU NOW" in text and "AT RISK" in text and "COVERAGE DETAILS" in text
    assert "ALSO AT RISK, OFF THE SESSION COUNT" in text and "NOT ON THIS BOARD YET" in text
    assert "That is not an all-clear" in text
    cover = page.locator(".coverage p")
    assert cover.first.inner_text().startswith("Not covered:")  # the block leads with the gap, not with what is covered
    assert "granted.Browser" not in page.locator(".coverage").inner_text()
    assert ". Browser notifications:" in page.locator(".coverage").inner_text()
    coverage = page.locator(".coverage")
    assert "Extension UI prompts in persisted sessions" in coverage.inner_text()  # Pi's stated conditions
    assert "Gemini CLI" not in coverage.inner_text(), "only the harnesses on the board are listed"
    assert "discover exploded" in coverage.inner_text()  # collector errors named, not zero
    assert "output usage of one branch" in coverage.inner_text()
    risk = page.locator(".attention .rows").first.inner_text()
    assert "Fix flaky test" in risk and "Port the tokenizer" in risk  # a loop, and a turn past 15 minutes


def test_fragment_routes_keys_and_the_session_page(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    assert page.locator("main").get_attribute("data-view") == "sessions"
    page.keyboard.press("p")
    page.wait_for_function("location.hash === '#n=projects'", timeout=5_000)
    page.wait_for_selector(".project[data-project='code/api']")
    shot(page, "projects")
    page.keyboard.press("a")
    page.wait_for_selector(".attention", timeout=5_000)
    assert page.url.endswith("#n=attention") and page.locator(".attention").count() == 1
    page.keyboard.press("Control+s")
    page.keyboard.press("Alt+p")
    assert page.url.endswith("#n=attention")  # modifiers are the browser's, not ours
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<input id=typing>')")
    page.focus("#typing")
    page.keyboard.type("spa")
    assert page.url.endswith("#n=attention")  # typing in a form control switches nothing
    page.evaluate("document.getElementById('typing').blur()")
    page.keyboard.press("s")
    # The hash moves in the key's handler; Playwright's page.url learns of it a moment later.
    page.wait_for_function("location.hash === '#n=sessions'", timeout=5_000)

    page.click(".project-link, main li.row[data-key^='codex:codex-quick'] a.title")
    assert "#n=session:code%2Fapi:codex:codex-quick-0002" in page.url
    page.wait_for_selector(".session-page[data-key='codex:codex-quick-0002']")
    sp = page.locator(".session-page")
    assert [b.inner_text() for b in sp.locator(".controls button").all()] == ["COPY ID", "COPY LINK", "COPY RESUME"]
    assert sp.locator(".controls button").nth(2).get_attribute("data-copy") == "codex resume codex-quick-0002"
    assert sp.locator(".controls button").nth(1).get_attribute("data-copy") == page.url
    page.reload()
    page.wait_for_selector(".session-page[data-key='codex:codex-quick-0002']")
    shot(page, "session")
    page.keyboard.press("Escape")
    assert page.url.endswith("#n=project:code%2Fapi")
    # The project opens its cockpit: every session of it is in the Scope rail.
    page.wait_for_selector(".cockpit .scope-row[data-scope='codex:codex-done-0003']")
    page.go_back()
    page.wait_for_selector(".session-page[data-key='codex:codex-quick-0002']")

    page.goto(server.url + "/#n=session:code%2Ftokenizer:pi:pi-busy-0001")
    page.wait_for_selector(".session-page")
    assert page.locator(".session-page .controls button").count() == 2  # no resume control on Pi
    page.goto(server.url + "/#n=session::claude:no-such-session")
    page.wait_for_selector(".missing-session")
    assert "not in the current payload" in page.locator(".missing-session").inner_text()
    assert "no-such-session" in page.locator(".missing-session").inner_text()
    assert page.errors == []


def test_copy_id_copies(board_server: Any, page_for: Any, browser: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/#n=session:code%2Fapi:codex:codex-quick-0002")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page.wait_for_selector(".session-page")
    page.locator(".controls button", has_text="COPY ID").click()
    page.wait_for_selector(".controls .copied:has-text('copied the session id')")
    assert page.evaluate("navigator.clipboard.readText()") == "codex-quick-0002"


def test_stalled_after_two_missed_refreshes(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    page.wait_for_selector(".live:has-text('live · updated')")
    server.stop()
    page.wait_for_selector(".live.stalled", timeout=6000)
    text = page.locator(".live").inner_text()
    assert text.startswith("stalled — last successful update ")
    shot(page, "stalled")


def wait_until(page: Any, expression: str, timeout: float = 5.0) -> Any:
    """Poll *expression* in the page (the page's policy forbids the eval wait_for_function uses)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression)
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_browser_notifications(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/", notifications=True)
    page.wait_for_timeout(700)
    server.copilot.wait(at=time.time() - 5, kind="url")
    # A wait raises once it still stands five seconds after the tab saw it open.
    assert not wait_until(page, "window.__shown.length >= 1", timeout=3.5), "not before it is confirmed"
    assert wait_until(page, "window.__shown.length >= 1", timeout=6)
    quick = server.codex.scripts["codex-quick-0002"]

    def gone_quiet(ref: SessionRef, now: datetime) -> SessionReading:
        r = quick(ref, now)
        return SessionReading(
            ref=ref,
            title=r.title,
            cwd=r.cwd,
            last_active_at=_ago(now, 200),
            turn=TurnEvidence(state="ended", ended_at=_ago(now, 200)),
        )

    server.codex.scripts["codex-quick-0002"] = gone_quiet
    assert wait_until(page, "window.__shown.length >= 2")
    shown = page.evaluate("window.__shown")
    assert shown[0][0] == "GitHub Copilot CLI: add a login page is waiting on you"
    assert shown[1][0] == "Codex: Fix flaky test has gone quiet"


@pytest.mark.parametrize(("width", "height", "name"), [(1280, 800, "sessions-1280"), (390, 844, "sessions-narrow")])
def test_readable_at_desktop_and_narrow_sizes(
    board_server: Any, page_for: Any, width: int, height: int, name: str
) -> None:
    server = board_server()
    page = page_for(server.url + "/", width=width, height=height)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at {width}px"
    for sel in (".tabs a[data-view='sessions']", ".tabs a[data-view='attention']", "main li.row a.title"):
        assert page.locator(sel).first.is_visible()
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement && document.activeElement.tagName")
    assert focused == "A"
    if name == "sessions-narrow":
        shot(page, name)


def test_every_cue_has_text_for_a_screen_reader(board_server: Any, page_for: Any) -> None:
    server = board_server()
    page = page_for(server.url + "/")
    pi = row(page, "pi:pi-busy")
    pi.locator("button.more-btn").click()
    assert "running" in pi.locator(".pill.run").inner_text()
    assert "15 minutes or more" in pi.locator(".long .sr-only").first.inner_text()
    for bar in pi.locator("[role=progressbar]").all():
        assert bar.get_attribute("aria-valuetext").startswith("current turn ")
    assert "in progress:" in pi.locator(".task.in_progress").inner_text()
    assert (
        page.locator(".strip li[data-harness='claude'] .sr-only").inner_text().startswith(": local session data found")
    )
    assert page.locator(".strip").get_attribute("aria-label") == "Discovered harnesses"
    for svg in page.locator("svg.mark").all()[:5]:
        assert svg.get_attribute("aria-hidden") == "true"


def test_the_page_needs_nothing_from_another_host(board_server: Any, page_for: Any) -> None:
    server = board_server()
    requests: list[str] = []
    page = page_for(server.url + "/")
    page.on("request", lambda r: requests.append(r.url))
    page.reload()
    page.wait_for_selector("main .row")
    assert requests and all(u.startswith(server.url) for u in requests)


def test_one_tab_per_browser_holds_the_stream(board_server: Any, browser: Any) -> None:
    server = board_server(rescan_s=3600)
    context = browser.new_context()
    streams: list[str] = []
    context.on("request", lambda r: streams.append(r.url) if "/api/stream" in r.url else None)
    try:
        first, second = context.new_page(), context.new_page()
        for page in (first, second):
            page.goto(server.url + "/")
            page.wait_for_selector("main li.row[data-key^='claude:'][data-state='idle']")
        time.sleep(0.5)
        assert len(streams) == 1
        append_prompt(server.transcript, "both tabs hear it")
        for page in (first, second):  # the tab without the stream hears it over its channel
            page.wait_for_selector("main li.row[data-key^='claude:'][data-state='working']", timeout=3000)
        first.close()  # the stream passes to the remaining tab
        deadline = time.monotonic() + 5
        while len(streams) < 2 and time.monotonic() < deadline:
            second.wait_for_timeout(50)
        assert len(streams) == 2
    finally:
        context.close()


def test_polling_fallback_without_eventsource(board_server: Any, page_for: Any, browser: Any) -> None:
    server = board_server(rescan_s=3600)
    context = browser.new_context()
    context.add_init_script("delete window.EventSource")
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector("main li.row[data-key^='claude:'][data-state='idle']")
        append_prompt(server.transcript, "polling works too")
        page.wait_for_selector("main li.row[data-key^='claude:'][data-state='working']", timeout=5000)
    finally:
        context.close()


def test_save_the_readme_screenshot_exists() -> None:
    """The README shows one of the screenshots this module saves."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "../docs/screenshots/sessions.png" in readme


def test_the_session_page_says_a_repeated_outcome_once(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    """Raises the service treated alike are listed each with its time, and their shared outcome
    is said once, under the newest; a different outcome is said in full again."""
    from cargento.testing.fakes import FakeHarness, FakeSession
    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=MemoryNotifier())
    fake = FakeHarness("copilot", [FakeSession("c1", age_s=5, title="Add a login page")], label="GitHub Copilot CLI")
    server = serve(builder_for([("copilot", fake)], tmp_path), hub=hub)
    no_backend = {
        "kind_words": "started waiting on you",
        "title": "GitHub Copilot CLI · Add a login page needs input",
        "outcome": "no-backend",
        "outcome_words": "this platform has no notification backend in this build: nothing was sent",
        "detail": "no D-Bus session bus",
        "backend": None,
        "tab_lane": {"reported": False, "words": "no dashboard tab had reported a notification lane of its own"},
    }
    handed = {
        **no_backend,
        "outcome": "handed-over",
        "outcome_words": "handed to the notification service",
        "detail": None,
    }
    now = datetime.now(UTC)
    raises = [
        {**no_backend, "raised_at": (now - timedelta(seconds=10)).isoformat()},
        {**no_backend, "raised_at": (now - timedelta(seconds=70)).isoformat()},
        {**handed, "raised_at": (now - timedelta(seconds=130)).isoformat()},
    ]

    def with_raises(route: Any) -> None:
        try:
            doc = route.fetch().json()  # the real record, with the three raises in it
        except Exception:  # the page or the server went away under a heartbeat's fetch
            return
        doc["deliveries"] = raises
        route.fulfill(json=doc)

    page = page_for(server.url + "/#n=session:fake%2Fproject:copilot:c1")
    page.route("**/api/session-record*", with_raises)
    page.reload()
    page.wait_for_selector(".record .delivery >> nth=2", timeout=8000)
    items = page.locator(".record .delivery")
    assert items.nth(0).locator(".dtab").count() == 1
    assert "no D-Bus session bus" in items.nth(0).inner_text()
    second = items.nth(1).inner_text()
    assert "the same outcome as the one above" in second and "no D-Bus" not in second
    assert "started waiting on you" in second  # its own time and kind stay
    assert items.nth(1).locator(".dtab").count() == 0
    third = items.nth(2).inner_text()
    assert "handed to the notification service" in third and "the same outcome" not in third
    assert page.errors == []
    # The page's heartbeat refetches the record: no handler may outlive this test's server.
    page.unroute_all(behavior="ignoreErrors")


def test_the_session_page_prints_what_became_of_a_raise(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    from cargento.models import Gate
    from cargento.testing.fakes import FakeHarness, FakeSession
    from cargento_web.runtime.hub import EventHub
    from cargento_web.runtime.notifiers import MemoryNotifier

    notifier = MemoryNotifier()
    hub = EventHub(clock=lambda: datetime.now(UTC), state_dir=tmp_path / "state", notifier=notifier)
    reported: list[float] = []
    take_report = hub.report_tab_lane

    def report_tab_lane(now: datetime | None = None) -> None:
        reported.append(time.monotonic())
        take_report(now)

    hub.report_tab_lane = report_tab_lane  # type: ignore[method-assign]
    fake = FakeHarness("copilot", [FakeSession("c1", age_s=5, title="Add a login page")], label="GitHub Copilot CLI")
    server = serve(builder_for([("copilot", fake)], tmp_path), hub=hub)
    try:
        hub.ingest("claude", {"session_id": "elsewhere", "hook_event_name": "Stop"})  # an unrelated session's mark
        page = page_for(server.url + "/#n=session:fake%2Fproject:copilot:c1", notifications=True)
        page.wait_for_selector(".session-page[data-key='copilot:c1'] .record .notifications")
        assert page.locator("header .native").get_attribute("data-native") == "available"
        deadline = time.monotonic() + 5
        while not reported and time.monotonic() < deadline:  # the granted tab reports its lane on load
            page.wait_for_timeout(50)
        assert len(reported) == 1
        assert (
            "No notification has been raised about this session." in page.locator(".record .notifications").inner_text()
        )
        # A raise about the session this visible tab shows is not sent (you are looking at it):
        # leave for Sessions, let the wait stand past its confirmation, then come back.
        page.evaluate("location.hash = '#n=sessions'")
        deadline = time.monotonic() + 5
        while hub.presence.showing("copilot", "c1", hub.clock()) and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        fake.sessions["c1"].gate = Gate(kind="shell", source="events.jsonl")  # the store records a wait
        deadline = time.monotonic() + 12
        while not notifier.sent and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        page.evaluate("location.hash = '#n=session:fake%2Fproject:copilot:c1'")
        page.wait_for_selector(".record .delivery[data-outcome='handed-over']", timeout=8000)
        delivery = page.locator(".record .delivery").first
        text = delivery.inner_text()
        assert "Add a login page needs input" in text and "started waiting on you" in text
        assert "handed to this machine's notification service: it accepted the request" in text
        assert "nothing about whether a banner was drawn or anyone saw it" in text
        assert delivery.locator(".dtab").get_attribute("data-tab-lane") == "reported"
        assert "a dashboard tab had reported its own notification lane" in delivery.locator(".dtab").inner_text()
        assert "never that a person saw a banner" in page.locator(".record .notifications").inner_text()
        commands = page.locator(".record .commands").inner_text()
        assert "No irreversible command shape was reported for this session in this run." in commands
        assert "no session-end event received" in commands
        assert notifier.sent and notifier.sent[0][0] == "GitHub Copilot CLI · Add a login page needs input"
        shot(page, "session-notifications")
        page.keyboard.press("a")
        coverage = page.locator(".coverage .native-coverage")
        assert coverage.get_attribute("data-native") == "available"
        assert "Desktop notifications are available on this machine through memory" in coverage.inner_text()
        assert "this tab shows browser notifications (permission granted)" in coverage.inner_text()
        assert page.errors == []
    finally:
        hub.close()


def test_one_sessions_change_leaves_every_other_rows_nodes_untouched(
    serve: Any, builder_for: Any, tmp_path: Path, page_for: Any
) -> None:
    """A revision redraws the row that moved and no other: a MutationObserver over the whole
    list sees no change inside any other row, through the revision and the clock redraws that
    follow it, and every other row is still the very element it was."""
    quiet_since = datetime.now(UTC) - timedelta(hours=3, minutes=10)  # "3h": stable for the test
    titles = {f"rows-{i:02d}": f"Session number {i}" for i in range(30)}

    def script(sid: str) -> Script:
        def read(ref: SessionRef, now: datetime) -> SessionReading:
            return SessionReading(
                ref=ref,
                title=titles[sid],
                cwd=f"/home/dev/code/p{sid[-1]}",
                started_at=quiet_since - timedelta(minutes=5),
                last_active_at=quiet_since,
            )

        return read

    pi = Scripted(HarnessInfo(key="pi", label="Pi"), {sid: script(sid) for sid in titles})
    server = serve(builder_for([("pi", pi)], tmp_path), all_sessions=True, rescan_s=0.3)
    page = page_for(server.url + "/")
    page.wait_for_function("document.querySelectorAll('main li.row[data-key]').length === 30")
    time.sleep(1.5)  # the first clock redraws settle
    page.evaluate(
        """() => {
        window.__rows = [...document.querySelectorAll('main li.row[data-key]')];
        window.__touched = [];
        new MutationObserver((records) => {
          for (const r of records) {
            const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
            const row = el && el.closest('li.row[data-key]');
            window.__touched.push(row ? row.dataset.key : '(' + r.type + ' outside the rows)');
          }
        }).observe(document.querySelector('main'), { subtree: true, childList: true, attributes: true, characterData: true });
      }"""
    )
    titles["rows-07"] = "Renamed while you watched"
    page.wait_for_selector("main li.row[data-key='pi:rows-07'] >> text=Renamed while you watched", timeout=10_000)
    time.sleep(2.5)  # two more clock redraws, and the slow timer's rebuilds
    touched = set(page.evaluate("window.__touched"))
    inside_rows = {key for key in touched if not key.startswith("(")}
    assert inside_rows == {"pi:rows-07"}, touched
    same = page.evaluate(
        """() => window.__rows.map((el) => el.isConnected
            && document.querySelector(`main li.row[data-key='${el.dataset.key}']`) === el)"""
    )
    assert all(same), "every row is the element it was (keyed rows: nothing rebuilt)"
    assert page.errors == []
