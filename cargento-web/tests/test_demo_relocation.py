"""Under ``--demo`` no plugin, first-party or third-party, reads outside the demo home, whatever
relocation variables the user's shell sets: every variable every loaded plugin declares is
pointed at a decoy store holding a session, and the demo board neither shows that session nor
searches a path under the decoy."""

from __future__ import annotations

from pathlib import Path

from cargento import hookimpl
from cargento.board import BoardBuilder
from cargento.demo import Demo
from cargento.locations import describe, resolve_root
from cargento.models import Discovery, HarnessContext, HarnessInfo, SessionReading, SessionRef
from cargento.plugins import Registry, load_registry
from cargento.processes import StaticProcesses

DECOY_SESSION = "the-users-own-session"


class ThirdParty:
    """A harness from outside this repository whose store moves with ``THIRDPARTY_HOME``."""

    __name__ = "thirdparty"

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key="thirdparty", label="Third Party", relocation_variables=("THIRDPARTY_HOME",))

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        root = resolve_root(ctx, variable="THIRDPARTY_HOME", default=".thirdparty")
        refs = tuple(
            SessionRef(harness="thirdparty", session_id=p.stem, path=str(p), location=str(root.path))
            for p in sorted(root.path.glob("*.json"))
        )
        return Discovery(locations=(describe(root.path, origin=root.origin),), sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        return SessionReading(ref=ref, title="decoy", last_active_at=ctx.now)


def _registry(env: dict[str, str]) -> Registry:
    return load_registry(env=env, extra=[("thirdparty", ThirdParty())])


def _decoy(tmp_path: Path) -> Path:
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    (decoy / f"{DECOY_SESSION}.json").write_text("{}")
    return decoy


def _sessions_and_paths(registry: Registry, env: dict[str, str], home: Path) -> tuple[set[str], list[str]]:
    builder = BoardBuilder(registry, env=env, home=home, processes=StaticProcesses())
    board = builder.build(all_sessions=True)
    searched = [loc.path for d in builder.last_discovery.values() for loc in d.locations]
    return {s.session_id for s in board.sessions}, searched


def test_every_declared_relocation_variable_set_to_a_decoy_is_ignored_by_the_demo(tmp_path: Path) -> None:
    decoy = _decoy(tmp_path)
    registry = _registry({})
    declared = registry.relocation_variables()
    assert "THIRDPARTY_HOME" in declared and len(registry.loaded()) >= 2
    shell = {"HOME": str(tmp_path / "real-home"), **{name: str(decoy) for name in declared}}

    # The control: outside the demo the decoy is what the third-party plugin reads.
    seen, _ = _sessions_and_paths(_registry(shell), shell, tmp_path / "real-home")
    assert DECOY_SESSION in seen

    demo = Demo(_registry(shell), base_env=shell, root=tmp_path)
    try:
        demo.start()
        assert not [k for k, v in demo.env.items() if v.startswith(str(decoy))]
        seen, searched = _sessions_and_paths(demo.registry, demo.env, demo.home)
        assert DECOY_SESSION not in seen
        assert not [p for p in searched if p.startswith(str(decoy))], "a plugin searched the decoy store"
        assert seen, "the demo board still shows the simulated sessions"
    finally:
        demo.stop()
