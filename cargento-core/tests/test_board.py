"""State precedence, folding, windowing, identity, ordering and the revision."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
from cargento.board import Board, BoardBuilder, board_json
from cargento.models import Gate
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.fakes import FakeHarness, FakeSession

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _build(sessions: list[FakeSession], *, key: str = "fake", now: datetime = NOW, all_sessions: bool = False) -> Board:
    reg = load_registry(entry_points=False, extra=[(key, FakeHarness(key, sessions))])
    b = BoardBuilder(reg, env={"HOME": "/home/u"}, clock=lambda: now, processes=StaticProcesses())
    return b.build(all_sessions=all_sessions)


def _state(board: Board, sid: str) -> str:
    return next(s.state for s in board.sessions if s.session_id == sid)


def test_recency_fallback_90_seconds() -> None:
    board = _build([FakeSession("fresh", age_s=30), FakeSession("stale", age_s=200)])
    assert _state(board, "fresh") == "working"
    assert _state(board, "stale") == "idle"


def test_recorded_turn_end_is_idle_at_once() -> None:
    board = _build([FakeSession("done", age_s=2, turn="ended")])
    assert _state(board, "done") == "idle"
    (s,) = board.sessions
    assert s.detail.startswith("last active")


def test_gate_outranks_everything() -> None:
    gate = Gate(kind="question", text="Which database?", source="transcript")
    board = _build([FakeSession("q", age_s=1, turn="ended", gate=gate)])
    (s,) = board.sessions
    assert (
        s.state == "needs_input"
        and s.waiting is not None
        and s.waiting.text == "Which database?"
        and s.detail == "Which database?"
    )


def test_order_needs_input_working_idle_by_recency() -> None:
    gate = Gate(kind="permission")
    board = _build(
        [
            FakeSession("idle-old", age_s=5000),
            FakeSession("idle-new", age_s=500),
            FakeSession("work", age_s=10),
            FakeSession("wait", age_s=9000, gate=gate),
        ]
    )
    assert [s.session_id for s in board.sessions] == ["wait", "work", "idle-new", "idle-old"]


def test_display_window_hides_old_idle_unless_all() -> None:
    sessions = [FakeSession("recent", age_s=3600), FakeSession("ancient", age_s=3 * 86400)]
    assert [s.session_id for s in _build(sessions).sessions] == ["recent"]
    assert {s.session_id for s in _build(sessions, all_sessions=True).sessions} == {"recent", "ancient"}


def test_children_fold_into_parent_and_add_activity_and_rate() -> None:
    parent = FakeSession("p", age_s=600, tokens_window=600)
    child = FakeSession("c", age_s=20, tokens_window=1200, parent_id="p", agent_name="researcher")
    board = _build([parent, child])
    (row,) = board.sessions
    assert row.session_id == "p"
    assert row.state == "working", "a running child counts as parent activity"
    assert [(a.name, a.running) for a in row.subagents] == [("researcher", True)]
    assert row.output_tokens_per_min == 60.0 + 120.0


def test_orphan_child_keeps_its_own_row() -> None:
    board = _build([FakeSession("c", parent_id="gone", agent_name="x")])
    assert [s.session_id for s in board.sessions] == ["c"]


def test_unmeasured_rate_is_null_not_zero() -> None:
    board = _build([FakeSession("u", tokens_window=None)])
    doc = orjson.loads(board_json(board))
    assert doc["sessions"][0]["output_tokens_per_min"] is None


def test_display_ids_widen_on_collision() -> None:
    a = "0199aaaa-bbbb-7000-8000-000000000001"
    b = "0199aaaa-bbbb-7000-8000-000000000002"
    board = _build([FakeSession(a), FakeSession(b), FakeSession("12345678-unique")])
    ids = {s.session_id: s.display_id for s in board.sessions}
    assert ids[a] != ids[b] and len(ids[a]) > 8 and ids["12345678-unique"] == "12345678"


def test_identity_and_project_label() -> None:
    board = _build(
        [
            FakeSession("s1", cwd="/home/u/src/acme/api"),
            FakeSession("s2", cwd="/home/u"),
            FakeSession("s3", cwd="rel/path"),
        ]
    )
    by = {s.session_id: s for s in board.sessions}
    assert by["s1"].project == "acme/api" and by["s1"].identity == ("fake", "acme/api", "s1")
    assert by["s2"].project == "(home)"
    assert by["s3"].project is None


def test_revision_changes_only_with_content() -> None:
    sessions = [FakeSession("a", at=NOW - timedelta(seconds=500))]
    reg = load_registry(entry_points=False, extra=[("fake", FakeHarness("fake", sessions))])
    clock = [NOW]
    b = BoardBuilder(reg, env={}, clock=lambda: clock[0], processes=StaticProcesses())
    r1 = b.build().revision
    clock[0] = NOW + timedelta(seconds=1)
    assert b.build().revision == r1, "the clock alone is not new content"
    sessions[0].title = "renamed"  # the fake reads its sessions live
    assert b.build().revision == r1 + 1


def test_turn_estimate_only_while_working() -> None:
    from cargento.models import SessionReading, TurnEvidence  # noqa: F401  (documented types)

    board = _build([FakeSession("w", age_s=5, turn="open")])
    (s,) = board.sessions
    assert s.turn is not None and s.turn.elapsed_s >= 5 and s.turn.eta_s is None


def test_redaction_before_the_page() -> None:
    board = _build([FakeSession("r", title="deploy with sk-ant-abcdefghijklmnopqrstuvwx please")])
    doc = orjson.loads(board_json(board))
    assert "abcdefghijklmnop" not in doc["sessions"][0]["title"]
    assert "…REDACTED" in doc["sessions"][0]["title"]


def test_board_document_contract_fields() -> None:
    doc = orjson.loads(board_json(_build([FakeSession("x")])))
    for key in ("schema", "revision", "generated_at", "window_hours", "harnesses", "sessions"):
        assert key in doc
    assert doc["schema"] == 1
    h = doc["harnesses"][0]
    for key in ("key", "label", "discovered", "sessions", "plugin", "error"):
        assert key in h
    assert set(h["plugin"]) >= {"name", "version", "status"}
    s = doc["sessions"][0]
    for key in (
        "harness",
        "session_id",
        "key",
        "project",
        "cwd",
        "title",
        "state",
        "detail",
        "waiting",
        "subagents",
        "tasks",
        "model",
        "output_tokens_per_min",
        "last_active_at",
        "turn",
        "resume_command",
        "read_by_scanning",
    ):
        assert key in s, key
    assert s["state"] in ("working", "needs_input", "idle")


def test_changes_rescan_only_the_dirty_harness() -> None:
    calls: list[str] = []

    class Counting(FakeHarness):
        def discover(self, ctx):  # type: ignore[no-untyped-def]
            calls.append(self.key)
            return FakeHarness.discover(self, ctx)

    from cargento import hookimpl

    Counting.discover = hookimpl(Counting.discover)  # type: ignore[method-assign]
    a = Counting("a", [FakeSession("a1", at=NOW - timedelta(seconds=30))])
    b = Counting("b", [FakeSession("b1", at=NOW - timedelta(seconds=30))])
    reg = load_registry(entry_points=False, extra=[("a", a), ("b", b)])
    clock = [NOW]
    builder = BoardBuilder(reg, env={}, clock=lambda: clock[0], processes=StaticProcesses())
    builder.build()
    assert sorted(calls) == ["a", "b"]
    calls.clear()
    clock[0] = NOW + timedelta(seconds=120)
    board = builder.build(changes={"a": frozenset({"/fake/a1"})})
    assert calls == ["a"], "the clean harness is not re-discovered"
    assert {s.session_id: s.state for s in board.sessions} == {"a1": "idle", "b1": "idle"}, (
        "clean rows still age with the clock"
    )
    calls.clear()
    builder.build()
    assert sorted(calls) == ["a", "b"], "unknown changes rescan everything"
    assert builder.harness_for_path("/fake/a1") in ("a", "b")
    assert builder.harness_for_path("/elsewhere/x") is None


def test_recency_derived_subagents_stop_running_as_the_clock_moves() -> None:
    from cargento import hookimpl
    from cargento.models import SessionReading, Subagent

    class WithPill(FakeHarness):
        @hookimpl
        def read_session(self, ref, ctx):  # type: ignore[no-untyped-def]
            base = FakeHarness.read_session(self, ref, ctx)
            pill = Subagent(name="explorer", running=True, last_active_at=NOW - timedelta(seconds=30), stale_after_s=90)
            return SessionReading(
                **{
                    **{f: getattr(base, f) for f in ("ref", "title", "cwd", "last_active_at", "turn")},
                    "subagents": (pill,),
                }
            )

    reg = load_registry(
        entry_points=False, extra=[("p", WithPill("p", [FakeSession("s", at=NOW - timedelta(seconds=30))]))]
    )
    clock = [NOW]
    builder = BoardBuilder(reg, env={}, clock=lambda: clock[0], processes=StaticProcesses())
    (row,) = builder.build().sessions
    assert row.subagents[0].running and row.state == "working"
    clock[0] = NOW + timedelta(seconds=120)
    (row,) = builder.build(changes={}).sessions
    assert not row.subagents[0].running and row.state == "idle"


def test_harness_faults_and_problems_are_redacted() -> None:
    from cargento import hookimpl

    class Leaky(FakeHarness):
        @hookimpl
        def discover(self, ctx):  # type: ignore[no-untyped-def]
            raise RuntimeError("token=ghp_abcdefghijklmnopqrstuvwxyz0123 rejected")

    reg = load_registry(entry_points=False, extra=[("leaky", Leaky("leaky"))])
    board = BoardBuilder(reg, env={}, clock=lambda: NOW, processes=StaticProcesses()).build()
    doc = board_json(board).decode()
    assert "ghp_abcdefghijklmnopqrstuvwxyz0123" not in doc and "…REDACTED" in doc


def test_a_clean_harness_is_re_evaluated_against_the_clock_at_most_every_second() -> None:
    from cargento import hookimpl

    calls: list[int] = []

    class Counting(FakeHarness):
        @hookimpl
        def read_session(self, ref, ctx):  # type: ignore[no-untyped-def]
            calls.append(1)
            return FakeHarness.read_session(self, ref, ctx)

    reg = load_registry(
        entry_points=False, extra=[("a", Counting("a", [FakeSession("s", at=NOW - timedelta(seconds=80))]))]
    )
    clock = [NOW]
    builder = BoardBuilder(reg, env={}, clock=lambda: clock[0], processes=StaticProcesses())
    assert builder.build().sessions[0].state == "working"
    read = len(calls)
    for _ in range(5):
        assert builder.build(changes={}).sessions[0].state == "working"
    assert len(calls) == read, "a clean harness is not re-read"
    clock[0] = NOW + timedelta(seconds=20)
    assert builder.build(changes={}).sessions[0].state == "idle", "board time moving on re-derives its rows"
