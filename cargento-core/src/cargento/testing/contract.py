"""``HarnessContract``: the conformance tests every harness plugin's suite subclasses.

Subclass it in ``tests/test_contract.py``::

    class TestMyContract(HarnessContract):
        plugin = my_plugin_module
        key = "mine"

        def make_home(self, home):
            ...  # write a representative store under home (a fake $HOME)
            return {}  # extra environment variables, if any

The contract checks: the plugin's key and sessions carry its own id; readings survive a
converter round trip; usage is never negative; a board builds with it; nothing under the home
is created, written, renamed or deleted (a full listing with sizes, mtimes and hashes,
``-wal``/``-shm`` included); no network is opened; random, truncated or half-written bytes
in any store file never raise anything but :class:`~cargento.HarnessError`; a declared
quota endpoint is https and names where the login is kept (or why it cannot be read), and
``read_quota`` reads any document without raising; a ``work_record`` describes itself without
reading, reads every session bounded and read-only, and says so when a session's file is gone; a
declared ``reading_provider`` names a bare executable, its arguments and destination; and, for each of
:attr:`HarnessContract.relocation_variables` (built by ``make_relocated_store``), the
relocated store is read and the default one is not.
"""

from __future__ import annotations

import math
import shutil
import socket
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cargento import serde
from cargento.board import BoardBuilder
from cargento.errors import HarnessError
from cargento.events.payloads import EventKind, LifecycleEvent, parse_event
from cargento.events.targets import HookTarget
from cargento.events.vocabulary import EventLane, EventVocabulary
from cargento.models import (
    WORK_LINE_CHARS,
    WORK_LINES,
    Discovery,
    HarnessContext,
    HarnessInfo,
    QuotaEndpoint,
    QuotaWindow,
    ReadingProvider,
    SessionReading,
    SessionRef,
    Usage,
    WorkRecord,
)
from cargento.plugins import load_registry
from cargento.processes import StaticProcesses
from cargento.testing.homes import make_context, snapshot_tree
from cargento.testing.strategies import damaged

__all__ = ["HarnessContract", "no_network"]


@contextmanager
def no_network() -> Iterator[None]:
    """Make every socket connection attempt fail loudly for the duration."""

    def refuse(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a harness plugin opened a network connection")

    saved = (socket.socket.connect, socket.socket.connect_ex, socket.create_connection, socket.getaddrinfo)
    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex, socket.create_connection, socket.getaddrinfo = saved  # type: ignore[method-assign]


class HarnessContract:
    """Base class of every harness plugin's conformance tests."""

    #: The plugin module (the entry-point target), or any object carrying its hook functions.
    #: Not a ``ClassVar``: mypy reads a module assigned in a class body (``plugin = plugin``)
    #: as an instance variable, and would reject every subclass that sets it.
    plugin: Any
    #: The harness id (the entry-point name).
    key: ClassVar[str]
    #: Evaluate as of this moment (defaults to now); set it when the home carries fixed times.
    now: ClassVar[datetime | None] = None
    #: How many damaged variants the fuzz test tries.
    fuzz_examples: ClassVar[int] = 40
    #: The environment variables that relocate the plugin's store (those its ``harness_info``
    #: declares); for each, the contract checks the relocated store is read and the default one
    #: is not. Supply :meth:`make_relocated_store` with them.
    relocation_variables: ClassVar[tuple[str, ...]] = ()

    def make_home(self, home: Path) -> Mapping[str, str]:
        """Write a representative store under *home*; return extra environment variables."""
        raise NotImplementedError

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        """Write one session under *home* and return its session id: in the store *variable*
        names when set to *target*, or, with *target* ``None``, where the plugin looks when
        *variable* is unset. The contract calls it once each way per variable; the two calls
        must write different sessions."""
        raise NotImplementedError

    def relocated_store_path(self, variable: str, target: Path) -> Path:
        """The store location the plugin reports first when *variable* is *target* (default:
        *target* itself)."""
        return target

    # -- helpers --------------------------------------------------------------------------

    def _moment(self) -> datetime:
        return self.now or datetime.now(UTC)

    def _home(self, root: Path) -> tuple[Path, dict[str, str]]:
        home = root / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = dict(self.make_home(home) or {})
        return home, env

    def _ctx(self, home: Path, env: Mapping[str, str]) -> HarnessContext:
        return make_context(home, env=env, now=self._moment(), window_s=None)

    def _read_all(self, ctx: HarnessContext) -> list[tuple[SessionReading, Any, Any, Any]]:
        found = self.plugin.discover(ctx=ctx)
        assert isinstance(found, Discovery)
        out = []
        for ref in found.sessions:
            reading = self.plugin.read_session(ref=ref, ctx=ctx)
            if reading is None:
                continue
            assert isinstance(reading, SessionReading)
            gate = getattr(self.plugin, "gate_state", lambda **_: None)(reading=reading, ctx=ctx)
            model = getattr(self.plugin, "model", lambda **_: None)(reading=reading, ctx=ctx)
            usage = getattr(self.plugin, "usage", lambda **_: None)(reading=reading, ctx=ctx)
            out.append((reading, gate, model, usage))
        return out

    def _builder(self, home: Path, env: Mapping[str, str]) -> BoardBuilder:
        full = {
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
        }
        full.update(env)
        registry = load_registry(entry_points=False, extra=[(self.key, self.plugin)])
        assert registry.records[self.key].status == "loaded", registry.records[self.key].error
        moment = self._moment()
        return BoardBuilder(registry, env=full, home=home, clock=lambda: moment, processes=StaticProcesses())

    # -- the contract ---------------------------------------------------------------------

    def test_contract_event_lane(self) -> None:
        """Where the plugin declares an event lane, every name maps to one of core's kinds, and
        ``refine_event`` keeps each generic event's harness and session."""
        lane_hook = getattr(self.plugin, "event_lane", None)
        if lane_hook is None:
            return
        lane = lane_hook()
        if lane is None:
            return
        assert isinstance(lane, EventLane)
        kinds = set(get_args(EventKind))
        assert lane.adapter and lane.events
        assert set(lane.events.values()) <= kinds, set(lane.events.values()) - kinds
        vocabulary = EventVocabulary({self.key: lane})
        moment = self._moment()
        for name, kind in lane.events.items():
            body: dict[str, Any] = {"hook_event_name": name, "session_id": "contract-1", "request_id": "r1"}
            event = parse_event(self.key, body, received_at=moment, vocabulary=vocabulary)
            assert event.kind == kind and event.harness == self.key
            refine = getattr(self.plugin, "refine_event", None)
            if refine is not None:
                refined = refine(event=event, body=body)
                assert isinstance(refined, LifecycleEvent)
                assert (refined.harness, refined.session_id) == (event.harness, event.session_id)

    def test_contract_hook_targets(self, tmp_path: Path) -> None:
        """Declared hook targets have unique names, a known style, and paths below the home
        (or the project) they were asked about; nothing is written by declaring them."""
        targets_hook = getattr(self.plugin, "hook_targets", None)
        if targets_hook is None:
            return
        home = tmp_path / "home"
        project = tmp_path / "project"
        before = snapshot_tree(tmp_path)
        for given_project in (None, project):
            found = targets_hook(env={"HOME": str(home)}, home=home, project=given_project)
            assert isinstance(found, tuple) and all(isinstance(t, HookTarget) for t in found)
            names = [t.name for t in found]
            assert len(names) == len(set(names))
            for target in found:
                if target.path is None:
                    assert target.unavailable
                    continue
                assert target.path.is_relative_to(home) or target.path.is_relative_to(project), target.path
                if target.style == "settings":
                    assert target.events
                if target.style == "adapter_file":
                    assert target.adapter_text and "cargento" in target.adapter_text.lower()
        assert snapshot_tree(tmp_path) == before

    def test_contract_telemetry(self, tmp_path: Path) -> None:
        """A declared telemetry vocabulary names how to tell its exports apart and where the
        session id is, keeps every file below the home it was asked about, points its setup at
        the endpoint it was given, never switches prompt logging on, and writes nothing."""
        telemetry_hook = getattr(self.plugin, "telemetry", None)
        if telemetry_hook is None:
            return
        from cargento.telemetry import TelemetryVocabulary

        home = tmp_path / "home"
        endpoint = "http://127.0.0.1:14318"
        before = snapshot_tree(tmp_path)
        found = telemetry_hook(env={"HOME": str(home)}, home=home, endpoint=endpoint)
        assert snapshot_tree(tmp_path) == before
        if found is None:
            return
        assert isinstance(found, TelemetryVocabulary)
        assert found.services and found.session_attributes
        setup = found.setup
        if setup.settings_path is not None:
            assert setup.settings_path.is_relative_to(home), setup.settings_path
        declared = repr((setup.environment, setup.settings, setup.toml_block))
        assert endpoint in declared, "the setup exports to the endpoint it was given"
        for prompt_logging in ("'OTEL_LOG_USER_PROMPTS': '1'", "'logPrompts': True", "log_user_prompt = true"):
            assert prompt_logging not in declared, "prompt logging is never switched on"

    def test_contract_quota_endpoint(self, tmp_path: Path) -> None:
        """A declared quota endpoint is https, names where the login is kept on each platform
        (below the home) or why it cannot be read there, and declaring it reads or writes nothing."""
        endpoint_hook = getattr(self.plugin, "quota_endpoint", None)
        if endpoint_hook is None:
            return
        home = tmp_path / "home"
        home.mkdir()
        before = snapshot_tree(tmp_path)
        with no_network():
            for platform in ("linux", "darwin", "win32"):
                found = endpoint_hook(env={"HOME": str(home)}, home=home, platform=platform)
                if found is None:
                    continue
                assert isinstance(found, QuotaEndpoint)
                assert found.url.startswith("https://") and found.method in ("GET", "POST")
                assert all(k.lower() != "authorization" for k, _ in found.headers), "the login is added by core"
                if found.unavailable is None:
                    assert found.keychain_service or found.credential_file is not None
                if found.credential_file is not None:
                    assert found.credential_file.is_relative_to(home), found.credential_file
        assert snapshot_tree(tmp_path) == before

    def test_contract_work_record(self, tmp_path: Path) -> None:
        """A work record: with ``tool_output=False`` it reads nothing and says what it would
        read; with it, every discovered session's record is bounded, and a session that is not
        in the store is a record with a note, never a fault; nothing under the home changes."""
        work_hook = getattr(self.plugin, "work_record", None)
        if work_hook is None:
            return
        home, env = self._home(tmp_path)
        ctx = self._ctx(home, env)
        refs = list(self.plugin.discover(ctx=ctx).sessions)
        before = snapshot_tree(tmp_path)
        with no_network():
            gone = SessionRef(harness=self.key, session_id="not-a-session-0000", path="")
            told = work_hook(ref=gone, ctx=ctx, tool_output=False)
            assert isinstance(told, WorkRecord) and told.describes and told.lines == ()
            missing = work_hook(ref=gone, ctx=ctx, tool_output=True)
            assert isinstance(missing, WorkRecord) and missing.lines == () and missing.notes, (
                "a session whose file is not found says so"
            )
            for ref in refs:
                found = work_hook(ref=ref, ctx=ctx, tool_output=True)
                if found is None:
                    continue
                assert isinstance(found, WorkRecord)
                assert len(found.lines) <= WORK_LINES
                assert all(isinstance(line, str) and len(line) <= WORK_LINE_CHARS for line in found.lines)
        assert snapshot_tree(tmp_path) == before

    def test_contract_reading_provider(self) -> None:
        """A declared reading provider names a bare executable (looked up on ``PATH``), its
        arguments, a label and the destination its text goes to; declaring runs nothing."""
        provider_hook = getattr(self.plugin, "reading_provider", None)
        if provider_hook is None:
            return
        found = provider_hook()
        if found is None:
            return
        assert isinstance(found, ReadingProvider)
        assert found.key and found.label and found.destination
        assert found.executable and "/" not in found.executable and "\\" not in found.executable
        assert all(isinstance(a, str) for a in found.arguments)
        assert found.command("/bin/x")[1:] == list(found.arguments)
        assert found.command_line().startswith(found.executable)

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(
        document=st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=40)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=16), inner, max_size=6)
            ),
            max_leaves=24,
        ),
        source=st.sampled_from(["reply", "pushed"]),
    )
    def test_contract_read_quota(self, document: Any, source: str) -> None:
        """``read_quota`` reads any document, of either source, without raising; every window
        it reads has a finite, non-negative share and a name of its own."""
        read = getattr(self.plugin, "read_quota", None)
        if read is None:
            return
        found = read(document=document, source=source, now=datetime(2026, 1, 1, tzinfo=UTC))
        assert isinstance(found, tuple) and all(isinstance(w, QuotaWindow) for w in found)
        assert len({w.name for w in found}) == len(found)
        for w in found:
            assert math.isfinite(w.used_percent) and w.used_percent >= 0
            assert w.window_s is None or (math.isfinite(w.window_s) and w.window_s > 0)

    def test_contract_harness_info(self) -> None:
        info = self.plugin.harness_info()
        assert isinstance(info, HarnessInfo)
        assert info.key == self.key
        assert info.label

    def test_contract_empty_home(self, tmp_path: Path) -> None:
        ctx = make_context(tmp_path, now=self._moment())
        found = self.plugin.discover(ctx=ctx)
        assert isinstance(found, Discovery)
        assert found.sessions == ()
        assert found.locations, "discover must report every path it searched, even when missing"

    def test_contract_sessions_carry_own_id(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        readings = self._read_all(self._ctx(home, env))
        assert readings, "make_home must produce at least one session"
        for reading, *_ in readings:
            assert reading.ref.harness == self.key

    def test_contract_round_trip(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        for reading, gate, model, usage in self._read_all(self._ctx(home, env)):
            assert serde.structure(serde.unstructure(reading), SessionReading) == reading
            for value in (gate, model, usage):
                if value is not None:
                    assert serde.structure(serde.unstructure(value), type(value)) == value

    def test_contract_usage_non_negative(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        for *_, usage in self._read_all(self._ctx(home, env)):
            if isinstance(usage, Usage):
                for figure in (usage.output_tokens_window, usage.output_tokens_total, usage.ai_units):
                    assert figure is None or figure >= 0

    def test_contract_board_builds(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        board = self._builder(home, env).build(all_sessions=True)
        assert board.sessions, "the board shows the plugin's sessions"
        assert {s.harness for s in board.sessions} == {self.key}
        assert not any(s.faults for s in board.sessions), [s.faults for s in board.sessions]
        row = next(h for h in board.harnesses if h.key == self.key)
        assert row.error is None, row.error

    def test_contract_writes_nothing(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        before = snapshot_tree(home)
        builder = self._builder(home, env)
        builder.build(all_sessions=True)
        builder.build(all_sessions=True)
        assert snapshot_tree(home) == before

    def test_contract_no_network(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        with no_network():
            self._read_all(self._ctx(home, env))
            self._builder(home, env).build(all_sessions=True)

    def test_contract_damaged_bytes(self, tmp_path: Path) -> None:
        home, env = self._home(tmp_path)
        files = sorted(p for p in home.rglob("*") if p.is_file())
        if not files:
            pytest.skip("no store files to damage")
        pristine = Path(tempfile.mkdtemp(prefix="cargento-fuzz-"))
        try:
            shutil.copytree(home, pristine / "home", copy_function=shutil.copy2)

            @settings(
                max_examples=self.fuzz_examples, deadline=None, suppress_health_check=list(HealthCheck), database=None
            )
            @given(data=st.data())
            def run(data: st.DataObject) -> None:
                target = data.draw(st.sampled_from(files))
                rel = target.relative_to(home)
                original = (pristine / "home" / rel).read_bytes()
                damaged_bytes = data.draw(damaged(original))
                work = Path(tempfile.mkdtemp(prefix="cargento-fuzz-"))
                try:
                    shutil.copytree(pristine / "home", work / "home", copy_function=shutil.copy2)
                    (work / "home" / rel).write_bytes(damaged_bytes)
                    ctx = self._ctx(
                        work / "home", {k: v.replace(str(home), str(work / "home")) for k, v in env.items()}
                    )
                    try:
                        self._read_all(ctx)
                    except HarnessError:
                        pass
                    builder = self._builder(
                        work / "home", {k: v.replace(str(home), str(work / "home")) for k, v in env.items()}
                    )
                    builder.build(all_sessions=True)
                    bugs = [f for fs in builder.registry.faults.values() for f in fs if f.kind != "expected"]
                    assert not bugs, [(f.hook, f.message, f.traceback) for f in bugs]
                finally:
                    shutil.rmtree(work, ignore_errors=True)

            run()
        finally:
            shutil.rmtree(pristine, ignore_errors=True)

    def test_contract_relocation_is_authoritative(self, tmp_path: Path) -> None:
        """With a relocation variable set, the plugin reads the store it names and nothing
        else: not the default store (no fallback, even while the relocated one is empty), and
        every location it reports lies in the relocated store."""
        if not self.relocation_variables:
            pytest.skip("this contract names no relocation variable")

        def sessions(home: Path, env: Mapping[str, str]) -> tuple[set[str], Discovery]:
            found = self.plugin.discover(ctx=make_context(home, env=env, now=self._moment(), window_s=None))
            assert isinstance(found, Discovery)
            return {ref.session_id for ref in found.sessions}, found

        for variable in self.relocation_variables:
            home = tmp_path / variable / "home"
            home.mkdir(parents=True)
            target = home / "relocated"
            env = {variable: str(target)}
            usual = self.make_relocated_store(home, variable, None)
            assert sessions(home, {})[0] == {usual}, "the default store is read while the variable is unset"
            ids, found = sessions(home, env)
            assert ids == set(), (
                f"with {variable} set, the default store is not read, even while the relocated one is empty"
            )
            assert found.locations and found.locations[0].path == str(self.relocated_store_path(variable, target))
            assert all(loc.origin == f"env {variable}" for loc in found.locations), [
                loc.origin for loc in found.locations
            ]
            assert all(Path(loc.path) == target or target in Path(loc.path).parents for loc in found.locations), (
                f"with {variable} set, only the relocated store is searched: {[loc.path for loc in found.locations]}"
            )
            moved = self.make_relocated_store(home, variable, target)
            assert moved != usual, "make_relocated_store must write a different session each way"
            assert sessions(home, env)[0] == {moved}
            board = self._builder(home, env).build(all_sessions=True)
            assert {s.session_id for s in board.sessions} == {moved}

    def test_contract_simulate(self, tmp_path: Path) -> None:
        """Where the plugin offers a demo (the ``simulate`` hook), it writes only below the demo
        home, its store reads back as sessions of this harness, and stepping keeps it readable."""
        if not hasattr(self.plugin, "simulate"):
            pytest.skip("this plugin offers no demo")
        from datetime import timedelta

        from cargento.demo import demo_env

        home = tmp_path / "demo-home"
        home.mkdir()
        outside = snapshot_tree(tmp_path)
        start = self._moment()
        env = demo_env({}, home)
        ctx = make_context(home, env=env, now=start, window_s=None)
        sim = self.plugin.simulate(home=home, ctx=ctx)
        assert sim is not None
        for second in range(1, 31):
            sim.step(start + timedelta(seconds=second * 2))
        after = {k: v for k, v in snapshot_tree(tmp_path).items() if not k.startswith("demo-home")}
        assert after == {k: v for k, v in outside.items() if not k.startswith("demo-home")}
        builder = self._builder(home, env)
        builder.clock = lambda: start + timedelta(seconds=60)
        board = builder.build(all_sessions=True)
        assert board.sessions and {s.harness for s in board.sessions} == {self.key}
        bugs = [f for fs in builder.registry.faults.values() for f in fs]
        assert not bugs, [(f.hook, f.message) for f in bugs]
