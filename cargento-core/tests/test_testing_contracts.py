"""The contracts themselves: ``HarnessContract``'s relocation check and ``DemoContract`` pass a
careful file-backed harness and fail one that falls back, writes when the clock goes back,
replays every missed turn or writes outside its home."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cargento import hookimpl
from cargento.demo import require_inside
from cargento.models import (
    Discovery,
    HarnessContext,
    HarnessInfo,
    SessionReading,
    SessionRef,
    StoreLocation,
    TurnEvidence,
)
from cargento.testing import DemoContract, HarnessContract

VARIABLE = "FOLDER_HOME"
CYCLE_S = 60.0
TICK_S = 5.0


def _root(ctx: HarnessContext) -> tuple[Path, str]:
    value = ctx.env.get(VARIABLE, "").strip()
    return (Path(value), f"env {VARIABLE}") if value else (ctx.home / ".folder", "default")


class FolderHarness:
    """Sessions are ``*.session`` files in one folder (``$FOLDER_HOME`` relocates it); a file's
    last line says whether its turn is open."""

    def __init__(self, *, fallback: bool = False, demo: type[FolderDemo] | None = None) -> None:
        self.fallback = fallback
        self.demo = demo
        self.__name__ = "folder"

    @hookimpl
    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(key="folder", label="Folder", relocation_variables=(VARIABLE,))

    @hookimpl
    def discover(self, ctx: HarnessContext) -> Discovery:
        root, origin = _root(ctx)
        files = sorted(root.glob("*.session"))
        if not files and self.fallback and origin != "default":
            files = sorted((ctx.home / ".folder").glob("*.session"))
        refs = tuple(
            SessionRef(
                harness="folder",
                session_id=p.stem,
                path=str(p),
                location=str(root),
                modified_at=datetime.fromtimestamp(p.stat().st_mtime, ctx.now.tzinfo),
            )
            for p in files
        )
        location = StoreLocation(path=str(root), origin=origin, status="present" if root.is_dir() else "missing")
        return Discovery(locations=(location,), sessions=refs)

    @hookimpl
    def read_session(self, ref: SessionRef, ctx: HarnessContext) -> SessionReading | None:
        path = Path(ref.path)
        lines = path.read_text().splitlines()
        at = datetime.fromtimestamp(path.stat().st_mtime, ctx.now.tzinfo)
        working = bool(lines) and lines[-1].startswith("working")
        turn = TurnEvidence(state="open", started_at=at) if working else TurnEvidence(state="ended")
        return SessionReading(ref=ref, title=ref.session_id, cwd=None, last_active_at=at, started_at=at, turn=turn)

    @hookimpl
    def simulate(self, home: Path, ctx: HarnessContext) -> Any:
        return self.demo(home, ctx) if self.demo is not None else None


class FolderDemo:
    """A finished session from an hour ago and a live one working the first half of each cycle."""

    careless = False  # writes however the clock moves
    replays = False  # replays every missed cycle after a jump
    inside = True  # refuses a store outside the home

    def __init__(self, home: Path, ctx: HarnessContext) -> None:
        self.root, _ = _root(ctx)
        if self.inside:
            require_inside(self.root, home, "Folder")
        self.root.mkdir(parents=True, exist_ok=True)
        self.start = ctx.now
        self.last = ctx.now
        old = self.root / "old.session"
        old.write_text("idle\n")
        os.utime(old, ((ctx.now - timedelta(hours=1)).timestamp(),) * 2)

    def _write(self, at: datetime) -> None:
        live = self.root / "live.session"
        phase = ((at - self.start).total_seconds() % CYCLE_S) < CYCLE_S / 2
        with open(live, "a") as fh:
            fh.write(f"{'working' if phase else 'idle'} {at.isoformat()}\n")
        os.utime(live, (at.timestamp(),) * 2)

    def step(self, now: datetime) -> None:
        """Write a line at every 5-second tick up to *now*; after a jump of more than a cycle,
        only the last two cycles' ticks (unless it ``replays``)."""
        if now <= self.last:
            if self.careless:
                self._write(now)
            return
        tick = int(TICK_S)
        done, due = (
            int((self.last - self.start).total_seconds()) // tick,
            int((now - self.start).total_seconds()) // tick,
        )
        per_cycle = int(CYCLE_S) // tick
        if due - done > 2 * per_cycle and not self.replays:
            done = due - 2 * per_cycle
        for n in range(done + 1, due + 1):
            self._write(self.start + timedelta(seconds=n * tick))
        self.last = now


# -- HarnessContract's relocation option -------------------------------------------------------


class FolderContract(HarnessContract):
    key = "folder"
    relocation_variables = (VARIABLE,)

    def make_relocated_store(self, home: Path, variable: str, target: Path | None) -> str:
        root = target if target is not None else home / ".folder"
        root.mkdir(parents=True, exist_ok=True)
        name = "moved" if target is not None else "usual"
        (root / f"{name}.session").write_text("idle\n")
        return name


def test_the_relocation_check_passes_an_authoritative_variable(tmp_path: Path) -> None:
    contract = FolderContract()
    type(contract).plugin = FolderHarness()
    contract.test_contract_relocation_is_authoritative(tmp_path)


def test_the_relocation_check_fails_a_plugin_that_falls_back_to_the_default_store(tmp_path: Path) -> None:
    contract = FolderContract()
    type(contract).plugin = FolderHarness(fallback=True)
    with pytest.raises(AssertionError, match="the default store is not read"):
        contract.test_contract_relocation_is_authoritative(tmp_path)


# -- DemoContract ------------------------------------------------------------------------------


class FolderDemoContract(DemoContract[FolderDemo]):
    key = "folder"
    demo_type = FolderDemo
    cycle_s = CYCLE_S
    store_folder = ".folder"
    relocation = (VARIABLE, ".folder")
    jump_from_s = 10
    jump_to_s = 2 * 24 * 3600 + 10
    jump_most = 2 * int(CYCLE_S / TICK_S)

    def written(self, viewer: Any) -> int:
        return len((viewer.home / ".folder" / "live.session").read_text().splitlines())


def _contract(demo: type[FolderDemo]) -> FolderDemoContract:
    contract = FolderDemoContract()
    type(contract).plugin = FolderHarness(demo=demo)
    return contract


def test_a_careful_demo_passes_every_demo_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    contract = _contract(FolderDemo)
    for name in sorted(n for n in dir(contract) if n.startswith("test_demo_")):
        method = getattr(contract, name)
        folder = tmp_path / name
        folder.mkdir()
        if name == "test_demo_writes_nothing_outside_its_home":
            method(folder, monkeypatch)
        else:
            method(folder)


class Careless(FolderDemo):
    careless = True


class Replaying(FolderDemo):
    replays = True


class Unguarded(FolderDemo):
    inside = False


@pytest.mark.parametrize(
    ("demo", "check", "message"),
    [
        (Careless, "test_demo_clock_going_back_writes_nothing", None),
        (Replaying, "test_demo_jump_ahead_does_not_replay_every_missed_turn", "not days of turns"),
        (Unguarded, "test_demo_refuses_a_store_outside_its_home", "DID NOT RAISE"),
    ],
)
def test_a_misbehaving_demo_fails_its_check(
    tmp_path: Path, demo: type[FolderDemo], check: str, message: str | None
) -> None:
    with pytest.raises((AssertionError, pytest.fail.Exception), match=message):
        getattr(_contract(demo), check)(tmp_path)
