"""Pi behaviour: store precedence, headers, the active branch, state, title, authority, usage."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cargento.board import BoardBuilder
from cargento.cache import HarnessCache
from cargento.models import Instruction, ModelInfo
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing import make_context
from cargento_harness_pi import plugin
from cargento_harness_pi.branch import BranchFacts
from cargento_harness_pi.entries import Entry, entry_from_record, header_from_record
from cargento_harness_pi.fixtures import PiSession, PiStore, encode_cwd
from cargento_harness_pi.tree import SessionTree, load
from hypothesis import given
from hypothesis import strategies as st

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def board(home: Path, now: datetime, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    registry = load_registry(entry_points=False, extra=[("pi", plugin)])
    full = {"HOME": str(home), **(env or {})}
    return BoardBuilder(registry, env=full, home=home, clock=lambda: now, processes=StaticProcesses()).build(
        all_sessions=True
    )


def one_row(home: Path, now: datetime, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    rows = board(home, now, env).sessions
    assert len(rows) == 1, rows
    return rows[0]


def started(home: Path, sid: str = "01a22b67-0000-7000-8000-000000000201") -> PiSession:
    s = PiStore(home).session(sid, cwd="/w/app", at=T0)
    s.model_change("openai-codex", "gpt-5.6-sol", T0)
    s.prompt("Fix the flaky test", T0)
    return s


# -- where and what -------------------------------------------------------------------------


def test_store_precedence(tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    PiStore(tmp_path, root=config / "sessions").session(
        "01a22b67-0000-7000-8000-000000000301", cwd="/w/a", at=T0, eager=True
    )
    PiStore(tmp_path, root=config / "custom", flat=True).session(
        "01a22b67-0000-7000-8000-000000000302", cwd="/w/b", at=T0, eager=True
    )
    PiStore(tmp_path, root=tmp_path / "direct", flat=True).session(
        "01a22b67-0000-7000-8000-000000000303", cwd="/w/c", at=T0, eager=True
    )
    PiStore(tmp_path, root=tmp_path / "tilde", flat=True).session(
        "01a22b67-0000-7000-8000-000000000304", cwd="/w/d", at=T0, eager=True
    )

    def ids(env: dict[str, str]) -> tuple[list[str], str]:
        found = plugin.discover(ctx=make_context(tmp_path, env=env, now=T0, window_s=None))
        return [r.session_id[-3:] for r in found.sessions], found.locations[0].origin

    assert ids({"PI_CODING_AGENT_DIR": str(config)}) == (["301"], "env PI_CODING_AGENT_DIR")
    (config / "settings.json").write_text(json.dumps({"sessionDir": "custom"}))
    assert ids({"PI_CODING_AGENT_DIR": str(config)}) == (["302"], "setting sessionDir")
    (config / "settings.json").write_text(json.dumps({"sessionDir": "~/tilde"}))
    assert ids({"PI_CODING_AGENT_DIR": str(config)}) == (["304"], "setting sessionDir")
    assert ids({"PI_CODING_AGENT_DIR": str(config), "PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "direct")}) == (
        ["303"],
        "env PI_CODING_AGENT_SESSION_DIR",
    )
    (config / "settings.json").write_text("{broken")
    assert ids({"PI_CODING_AGENT_DIR": str(config)}) == (["301"], "env PI_CODING_AGENT_DIR")
    assert ids({})[0] == []


def test_only_v3_session_headers_are_sessions(tmp_path: Path) -> None:
    folder = tmp_path / ".pi/agent/sessions" / encode_cwd("/w/app")
    folder.mkdir(parents=True)
    (folder / "junk.jsonl").write_bytes(b'{"type":"other"}\n')
    (folder / "v1.jsonl").write_bytes(b'{"type":"session","timestamp":"2026-11-30T09:00:00Z","cwd":"/w"}\n')
    (folder / "v2.jsonl").write_bytes(b'{"type":"session","version":2,"id":"x","cwd":"/w"}\n')
    (folder / "half.jsonl").write_bytes(b'{"type":"session","version":3,"id":"01a2')
    s = started(tmp_path)
    s.reply("Done.", T0 + timedelta(seconds=2))
    refs = plugin.discover(ctx=make_context(tmp_path, now=T0, window_s=None)).sessions
    assert [r.session_id for r in refs] == [s.session_id]


def test_a_fork_is_not_a_subagent(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("Done.", T0 + timedelta(seconds=2))
    fork = PiStore(tmp_path).session(
        "01a22b67-0000-7000-8000-000000000202", cwd="/w/app", at=T0, parent_session=str(s.path)
    )
    fork.prompt("Now the other way", T0 + timedelta(seconds=3))
    fork.reply("Done too.", T0 + timedelta(seconds=4))
    rows = board(tmp_path, T0 + timedelta(seconds=5)).sessions
    assert sorted(r.session_id for r in rows) == sorted([s.session_id, fork.session_id])
    assert all(r.subagents == () for r in rows)


def test_first_turn_is_invisible_until_the_first_answer(tmp_path: Path) -> None:
    s = started(tmp_path)
    assert not s.path.exists()
    s.reply("Hi.", T0 + timedelta(seconds=1))
    assert s.path.exists()


# -- state -------------------------------------------------------------------------------------


def test_tool_use_leaf_holds_working_up_to_fifteen_minutes(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.tool("bash", T0 + timedelta(seconds=5), arguments={"command": "make all"})
    row = one_row(tmp_path, T0 + timedelta(minutes=10))
    assert (row.state, row.detail) == ("working", "running bash")
    assert one_row(tmp_path, T0 + timedelta(minutes=15, seconds=10)).state == "idle"


@pytest.mark.parametrize("reason", ["stop", "aborted", "error"])
def test_finished_turn_reads_idle_at_once(tmp_path: Path, reason: str) -> None:
    s = started(tmp_path)
    s.reply("Done.", T0 + timedelta(seconds=5), stop=reason)
    assert one_row(tmp_path, T0 + timedelta(seconds=6)).state == "idle"


@pytest.mark.parametrize("reason", ["length", "somethingNew", None])
def test_unrecognised_stop_reason_stays_on_recency(tmp_path: Path, reason: str | None) -> None:
    s = started(tmp_path)
    s.assistant(T0 + timedelta(seconds=5), text="cut off", stop=reason)
    assert one_row(tmp_path, T0 + timedelta(seconds=30)).state == "working"
    assert one_row(tmp_path, T0 + timedelta(seconds=100)).state == "idle"


def test_user_or_tool_result_leaf_reads_thinking_while_fresh(tmp_path: Path) -> None:
    s = started(tmp_path)
    call = s.tool("read", T0 + timedelta(seconds=2))
    s.tool_result(call, "read", "contents", T0 + timedelta(seconds=3))
    row = one_row(tmp_path, T0 + timedelta(seconds=30))
    assert (row.state, row.detail) == ("working", "thinking")
    assert one_row(tmp_path, T0 + timedelta(seconds=120)).state == "idle"


def test_a_later_title_entry_does_not_hide_the_finished_turn(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("Done.", T0 + timedelta(seconds=5))
    s.session_info("Flaky test", T0 + timedelta(seconds=6))
    row = one_row(tmp_path, T0 + timedelta(seconds=7))
    assert (row.state, row.title) == ("idle", "Flaky test")


# -- branches ------------------------------------------------------------------------------------


def test_sibling_branch_is_excluded(tmp_path: Path) -> None:
    s = started(tmp_path)
    root_prompt = s.leaf
    s.tool("bash", T0 + timedelta(seconds=5), output=500, provider="anthropic", model="claude-x")
    s.branch(root_prompt)
    s.reply("Let me think differently.", T0 + timedelta(seconds=20), output=7)
    s.prompt("continue", T0 + timedelta(seconds=25))
    row = one_row(tmp_path, T0 + timedelta(seconds=26))
    assert row.output_tokens_total == 7
    assert row.authority == "via Codex · gpt-5.6-sol"
    assert row.instruction == Instruction(text="Fix the flaky test", source="earlier prompt", at=T0)
    assert row.detail == "thinking"


def test_broken_ancestry_falls_back_to_newest_leaf_reaching_root(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("First answer.", T0 + timedelta(seconds=5), output=11)
    s.entry(
        "message",
        T0 + timedelta(seconds=9),
        parent="deadbeef",
        message={"role": "user", "content": "orphan prompt", "timestamp": 0},
    )
    row = one_row(tmp_path, T0 + timedelta(seconds=10))
    assert row.instruction is not None and row.instruction.text == "Fix the flaky test"
    assert row.state == "idle"
    assert row.output_tokens_total == 11


def test_cycle_does_not_hang(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("ok", T0 + timedelta(seconds=1))
    s.raw(
        b'{"type":"message","id":"aaaa0001","parentId":"aaaa0002","timestamp":"2026-11-30T09:00:02Z","message":{"role":"user","content":"a"}}\n'
        b'{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-11-30T09:00:03Z","message":{"role":"user","content":"b"}}\n',
        T0 + timedelta(seconds=3),
    )
    row = one_row(tmp_path, T0 + timedelta(seconds=4))
    assert row.instruction is not None and row.instruction.text == "Fix the flaky test"


# -- title, authority, usage -------------------------------------------------------------------------


def test_title_from_newest_global_session_info_and_its_clear(tmp_path: Path) -> None:
    s = started(tmp_path)
    first = s.reply("Done.", T0 + timedelta(seconds=2))
    s.session_info("Named", T0 + timedelta(seconds=3))
    s.branch(first)
    s.prompt("Another direction", T0 + timedelta(seconds=4))
    s.reply("ok", T0 + timedelta(seconds=5))
    # The session_info sits on the abandoned branch and still names the session.
    assert one_row(tmp_path, T0 + timedelta(seconds=6)).title == "Named"
    s.session_info("", T0 + timedelta(seconds=7))
    assert one_row(tmp_path, T0 + timedelta(seconds=8)).title == "Fix the flaky test"
    s.session_info("Renamed", T0 + timedelta(seconds=9))
    s.session_info(None, T0 + timedelta(seconds=10))
    assert one_row(tmp_path, T0 + timedelta(seconds=11)).title == "Fix the flaky test"


def test_authority_rules(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("ok", T0 + timedelta(seconds=2), provider="anthropic", model="claude-sonnet-5")
    ctx = make_context(tmp_path, now=T0 + timedelta(seconds=3), window_s=None)

    def info() -> ModelInfo | None:
        ref = plugin.discover(ctx=ctx).sessions[0]
        reading = plugin.read_session(ref=ref, ctx=ctx)
        assert reading is not None
        return plugin.model(reading=reading, ctx=ctx)

    assert info() == ModelInfo(id="claude-sonnet-5", authority="via Claude · claude-sonnet-5")
    s.model_change("openrouter", "qwen-9", T0 + timedelta(seconds=4))  # switched, not spent yet
    assert info() == ModelInfo(id="qwen-9", authority="via openrouter · qwen-9")
    s.reply("ok", T0 + timedelta(seconds=5), provider=None, model="local-7b")
    assert info() == ModelInfo(id="qwen-9", authority="via openrouter · qwen-9")


def test_no_provider_no_claim(tmp_path: Path) -> None:
    s = PiStore(tmp_path).session("01a22b67-0000-7000-8000-000000000401", cwd="/w/app", at=T0)
    s.prompt("hi", T0)
    s.reply("hello", T0 + timedelta(seconds=1), provider=None, model=None, output=None)
    row = one_row(tmp_path, T0 + timedelta(seconds=2))
    assert (row.model, row.authority, row.output_tokens_total, row.output_tokens_per_min) == (None, None, None, None)


def test_usage_sources_and_window(tmp_path: Path) -> None:
    s = started(tmp_path)
    call = s.tool("bash", T0, output=100)
    s.tool_result(call, "bash", "ok", T0 + timedelta(minutes=1), output=5)
    s.compaction(T0 + timedelta(minutes=20), output=300)
    s.branch_summary("deadbeef", T0 + timedelta(minutes=21), output=40)
    s.reply("done", T0 + timedelta(minutes=22), output=60)
    row = one_row(tmp_path, T0 + timedelta(minutes=25))
    assert row.output_tokens_total == 505
    assert row.output_tokens_per_min == 40.0  # (300 + 40 + 60) / 10


# -- Spacedock --------------------------------------------------------------------------------------


def test_spacedock_boot_result_makes_a_first_officer(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.spacedock_boot("/w/app/docs/dev", "/w/app/docs/dev/.state", T0 + timedelta(seconds=2))
    s.reply("Booted.", T0 + timedelta(seconds=3))
    row = one_row(tmp_path, T0 + timedelta(seconds=4))
    assert row.role == "spacedock:first-officer"
    assert row.notes == ("spacedock workflow /w/app/docs/dev",)
    assert row.spacedock is not None, "the boot reading is published for the stage strips"
    assert row.spacedock.workflow_dirs == ("/w/app/docs/dev",)
    assert row.spacedock.entity_dirs == ("/w/app/docs/dev/.state",)
    assert [(d.slug, d.current, d.next) for d in row.spacedock.dispatchable] == [
        ("task-1", "implementation", "validation")
    ]
    assert row.spacedock.at == T0 + timedelta(seconds=2)


def test_boot_json_as_conversation_or_failed_command_is_not_a_boot(tmp_path: Path) -> None:
    s = started(tmp_path)
    boot = json.dumps({"workflow_dir": "/w/app/docs/dev", "entity_dir": "/w/x"})
    s.prompt(boot, T0 + timedelta(seconds=1))
    call = s.tool("bash", T0 + timedelta(seconds=2), arguments={"command": "spacedock status --boot --json"})
    s.tool_result(call, "bash", boot, T0 + timedelta(seconds=3), error=True)
    other = s.tool("bash", T0 + timedelta(seconds=4), arguments={"command": "cat boot.json"})
    s.tool_result(other, "bash", boot, T0 + timedelta(seconds=5))
    again = s.tool("bash", T0 + timedelta(seconds=6), arguments={"command": "spacedock status --boot --json"})
    s.tool_result(again, "bash", boot + "\ntrailing words", T0 + timedelta(seconds=7))
    s.reply("done", T0 + timedelta(seconds=8))
    row = one_row(tmp_path, T0 + timedelta(seconds=9))
    assert row.role is None
    assert row.spacedock is None, "no strip source from conversation text or a failed command"


# -- incremental reading -----------------------------------------------------------------------------


def test_partial_last_line_does_not_advance_the_offset(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("First.", T0 + timedelta(seconds=1))
    header = header_from_record(json.loads(s.path.read_text().splitlines()[0]))
    assert header is not None
    line = (
        json.dumps(
            {
                "type": "message",
                "id": "feed0001",
                "parentId": s.leaf,
                "timestamp": "2026-11-30T09:00:05Z",
                "message": {"role": "user", "content": "Second request"},
            }
        ).encode()
        + b"\n"
    )
    s.raw(line[:30], T0 + timedelta(seconds=5))
    cache = HarnessCache()
    tree = load(cache, str(s.path), header)
    offset = tree.follower.offset
    assert tree.leaf() is not None and tree.leaf().kind == "assistant"  # type: ignore[union-attr]
    assert load(cache, str(s.path), header).follower.offset == offset
    s.raw(line[30:], T0 + timedelta(seconds=6))
    tree = load(cache, str(s.path), header)
    assert tree.leaf() is not None and tree.leaf().text == "Second request"  # type: ignore[union-attr]
    assert tree.follower.offset > offset


def test_refresh_after_rewrite_rebuilds(tmp_path: Path) -> None:
    s = started(tmp_path)
    s.reply("First.", T0 + timedelta(seconds=1))
    header = header_from_record(json.loads(s.path.read_text().splitlines()[0]))
    assert header is not None
    cache = HarnessCache()
    assert load(cache, str(s.path), header).leaf() is not None
    lines = s.path.read_bytes().splitlines(keepends=True)
    s.path.write_bytes(b"".join(lines[:-1]))
    tree = load(cache, str(s.path), header)
    assert isinstance(tree, SessionTree) and tree.leaf() is not None and tree.leaf().kind == "user"  # type: ignore[union-attr]


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "id",
                    "parentId",
                    "timestamp",
                    "message",
                    "role",
                    "content",
                    "usage",
                    "output",
                    "stopReason",
                    "provider",
                    "model",
                    "modelId",
                    "name",
                    "toolCallId",
                    "isError",
                    "text",
                    "arguments",
                    "command",
                    "version",
                    "cwd",
                ]
            ),
            kids,
            max_size=5,
        )
    ),
    max_leaves=15,
)


@given(_values)
def test_entry_and_header_parsers_never_raise(value: object) -> None:
    if isinstance(value, dict):
        entry_from_record(value)
        header_from_record(value)


@given(st.lists(st.tuples(st.integers(0, 12), st.one_of(st.none(), st.integers(0, 12)), st.booleans()), max_size=40))
def test_the_kept_active_path_is_the_one_a_fresh_walk_finds(links: list[tuple[int, int | None, bool]]) -> None:
    # Entries added (re-added under an id, out of order, branching back), the path asked for
    # after some of them: it is always what walking the tree afresh finds, and a new list.
    tree = SessionTree.open("/nonexistent", header_from_record({"type": "session", "version": 3, "id": "x"}))  # type: ignore[arg-type]
    for child, parent, ask in links:
        entry = entry_from_record(
            {"type": "label", "id": f"e{child}", "parentId": None if parent is None else f"e{parent}"}
        )
        assert entry is not None
        tree.add(entry)
        if ask:
            first = tree.active_path()
            assert first == tree._walk_active_path()
            first.clear()  # the caller's own list
            assert tree.active_path() == tree._walk_active_path()


def test_a_refresh_walks_the_active_path_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = SessionTree.open("/nonexistent", header_from_record({"type": "session", "version": 3, "id": "x"}))  # type: ignore[arg-type]
    walks: list[int] = []
    real = SessionTree._walk_active_path

    def counting(self: SessionTree) -> list[object]:
        walks.append(1)
        return real(self)  # type: ignore[return-value]

    monkeypatch.setattr(SessionTree, "_walk_active_path", counting)
    for i in range(3):
        entry = entry_from_record({"type": "label", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None})
        assert entry is not None
        tree.add(entry)
    assert [e.id for e in tree.active_path()] == ["e0", "e1", "e2"]
    tree.active_path(), tree.active_path()
    assert len(walks) == 1
    branch = entry_from_record({"type": "label", "id": "e3", "parentId": "e0"})
    assert branch is not None
    tree.add(branch)
    assert [e.id for e in tree.active_path()] == ["e0", "e3"]
    assert len(walks) == 2
    for i in range(4, 8):  # appended under the leaf: the branch grows without a walk
        entry = entry_from_record({"type": "label", "id": f"e{i}", "parentId": f"e{i - 1}"})
        assert entry is not None
        tree.add(entry)
        assert [e.id for e in tree.active_path()] == ["e0", "e3", *(f"e{n}" for n in range(4, i + 1))]
    assert len(walks) == 2
    again = entry_from_record({"type": "label", "id": "e5", "parentId": "e4"})  # an id written again
    assert again is not None
    tree.add(again)
    assert [e.id for e in tree.active_path()] == ["e0", "e3", "e4", "e5"]
    assert len(walks) == 3


_KINDS = st.sampled_from(["user", "assistant", "toolResult", "model_change", "label"])
_TEXTS = st.sampled_from([None, "", "Fix the parser", "ok", "continue", "Now the tests"])


@st.composite
def _entries(draw: st.DrawFn) -> list[Entry]:
    out: list[Entry] = []
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(_KINDS)
        n = draw(st.integers(0, 12))
        parent = draw(st.one_of(st.none(), st.integers(0, 12), st.just(-1)))
        if parent == -1 and out:  # the common case: under the entry written last
            parent_id: str | None = out[-1].id
        else:
            parent_id = None if parent is None or parent == -1 else f"e{parent}"
        out.append(
            Entry(
                id=f"e{n}",
                parent=parent_id,
                kind=kind,
                at=draw(st.one_of(st.none(), st.integers(-900, 900).map(lambda s: T0 + timedelta(seconds=s)))),
                text=draw(_TEXTS) or None,
                tools=tuple(draw(st.lists(st.sampled_from(["read", "bash"]), max_size=2))),
                stop_reason=draw(st.sampled_from([None, "stop", "toolUse", "error"])),
                provider=draw(st.sampled_from([None, "anthropic", "openai-codex"])),
                model=draw(st.sampled_from([None, "m-1", "m-2"])),
                output_tokens=draw(st.one_of(st.none(), st.integers(0, 500))),
            )
        )
    return out


def _said(facts: BranchFacts) -> tuple[object, ...]:
    return (
        facts.count,
        facts.clock.evidence(),
        facts.first_prompt,
        facts.newest_prompt,
        facts.newest_plain_prompt,
        facts.last_message,
        facts.last_tool,
        facts.newest_carrier,
        facts.newest_provider_carrier,
        facts.output_events,
        facts.output_total,
        tuple(facts.tokens.in_window(T0 + timedelta(seconds=s)) for s in (-600, 0, 300, 900)),
    )


@given(_entries(), st.lists(st.booleans(), max_size=30))
def test_the_kept_branch_facts_are_what_a_fresh_walk_says(entries: list[Entry], asks: list[bool]) -> None:
    # Entries appended under the leaf, branching back, re-added under an id, with missing
    # parents; the facts asked for after some of them: always what feeding a fresh walk of
    # the active branch says, and the kept branch is that walk's.
    tree = SessionTree.open("/nonexistent", header_from_record({"type": "session", "version": 3, "id": "x"}))  # type: ignore[arg-type]
    for entry, ask in itertools.zip_longest(entries, asks, fillvalue=True):
        if not isinstance(entry, Entry):
            break
        tree.add(entry)
        if ask:
            walked = tree._walk_active_path()
            fresh = BranchFacts()
            for e in walked:
                fresh.feed(e)
            assert _said(tree.facts()) == _said(fresh)
            assert tree.active_path() == walked


@given(st.lists(st.tuples(st.integers(0, 12), st.one_of(st.none(), st.integers(0, 12))), max_size=30))
def test_active_path_is_a_root_chain(links: list[tuple[int, int | None]]) -> None:
    tree = SessionTree.open("/nonexistent", header_from_record({"type": "session", "version": 3, "id": "x"}))  # type: ignore[arg-type]
    for child, parent in links:
        entry = entry_from_record(
            {"type": "label", "id": f"e{child}", "parentId": None if parent is None else f"e{parent}"}
        )
        assert entry is not None
        tree.add(entry)
    path = tree.active_path()
    if path:
        assert path[0].parent is None
        assert all(b.parent == a.id for a, b in itertools.pairwise(path))
        assert len({e.id for e in path}) == len(path)


def test_the_tree_holds_each_name_of_a_long_session_once(tmp_path: Path) -> None:
    # The tree keeps every entry of a session, so the names its entries repeat (model,
    # provider, tool, stop reason, entry type) are held once, not once per entry.
    store = PiStore(tmp_path)
    s = store.session(cwd="/w/p", at=T0)
    s.prompt("go", T0 + timedelta(seconds=1))
    for i in range(100):
        call = s.tool("bash", T0 + timedelta(seconds=2 + 3 * i))
        s.tool_result(call, "bash", "ok", T0 + timedelta(seconds=3 + 3 * i))
    s.reply("done", T0 + timedelta(seconds=400))
    found = (entry_from_record(json.loads(line)) for line in s.path.read_text().splitlines())
    entries = [e for e in found if e is not None]
    for field in ("model", "provider", "stop_reason", "tool_name"):
        held = {id(getattr(e, field)) for e in entries if getattr(e, field) is not None}
        named = {getattr(e, field) for e in entries if getattr(e, field) is not None}
        assert named and len(held) == len(named), field
    assert len({id(t) for e in entries for t in e.tools}) == 1


def test_an_entry_names_its_parent_by_the_parents_own_id(tmp_path: Path) -> None:
    # The tree keeps every entry: a child holds its parent's id string, not a copy of it.
    store = PiStore(tmp_path)
    s = store.session(cwd="/w/p", at=T0)
    s.prompt("go", T0 + timedelta(seconds=1))
    for i in range(20):
        s.reply("more", T0 + timedelta(seconds=2 + i))
    header = header_from_record(json.loads(s.path.read_text().splitlines()[0]))
    assert header is not None
    tree = SessionTree.open(str(s.path), header)
    assert tree.refresh()
    parented = [(e.parent, e) for e in tree.entries.values() if e.parent is not None]
    assert len(parented) >= 20
    assert all(parent is tree.entries[parent].id for parent, _ in parented)
