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


def _decoys(tmp_path: Path, names: tuple[str, ...]) -> dict[str, Path]:
    """One decoy store per variable, each holding a session in the third-party plugin's format."""
    out = {}
    for name in names:
        decoy = tmp_path / "decoy" / name
        decoy.mkdir(parents=True)
        (decoy / f"{DECOY_SESSION}.json").write_text("{}")
        out[name] = decoy
    return out


def _sessions_and_paths(registry: Registry, env: dict[str, str], home: Path) -> tuple[set[str], list[str]]:
    builder = BoardBuilder(registry, env=env, home=home, processes=StaticProcesses())
    board = builder.build(all_sessions=True)
    searched = [loc.path for d in builder.last_discovery.values() for loc in d.locations]
    return {s.session_id for s in board.sessions}, searched


def _reached(searched: list[str], decoys: dict[str, Path]) -> set[str]:
    return {name for name, decoy in decoys.items() if any(p.startswith(str(decoy)) for p in searched)}


def test_every_declared_relocation_variable_set_to_a_decoy_is_ignored_by_the_demo(tmp_path: Path) -> None:
    registry = _registry({})
    declared = registry.relocation_variables()
    assert "THIRDPARTY_HOME" in declared and len(registry.loaded()) >= 2
    decoys = _decoys(tmp_path, declared)
    shell = {"HOME": str(tmp_path / "real-home"), **{name: str(path) for name, path in decoys.items()}}

    # The control: outside the demo the plugins follow these variables into the decoys.
    seen, searched = _sessions_and_paths(_registry(shell), shell, tmp_path / "real-home")
    assert DECOY_SESSION in seen
    reached = _reached(searched, decoys)
    assert "THIRDPARTY_HOME" in reached and len(reached) >= 6, reached

    demo = Demo(_registry(shell), base_env=shell, root=tmp_path)
    try:
        demo.start()
        assert not [k for k, v in demo.env.items() if v.startswith(str(tmp_path / "decoy"))]
        seen, searched = _sessions_and_paths(demo.registry, demo.env, demo.home)
        assert DECOY_SESSION not in seen
        assert _reached(searched, decoys) == set(), "a plugin searched a decoy store"
        assert seen, "the demo board still shows the simulated sessions"
    finally:
        demo.stop()
