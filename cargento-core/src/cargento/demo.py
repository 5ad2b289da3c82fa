"""``cargento --demo``: a temporary home with live stores for every harness that offers one.

Each harness plugin writes its own native store through its ``simulate`` hook (with the same
store builders its tests use), and a background thread steps every simulation about once a
second, so the board sees turns start and end, tasks advance, subagents come and go and waits
open and close, exactly as it would with the real harnesses. The user's own stores are never
touched: every relocation variable and home-like variable points into the demo home, which is
removed when the demo stops.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from cargento.cache import HarnessCache
from cargento.locations import RELOCATION_VARIABLES
from cargento.models import HarnessContext, Simulation
from cargento.plugins import Fault, Registry

__all__ = ["Demo", "demo_env"]

_HOME_VARIABLES = ("HOME", "USERPROFILE", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "APPDATA", "LOCALAPPDATA")


def demo_env(base: Mapping[str, str], home: Path) -> dict[str, str]:
    """*base* with every relocation variable removed and every home-like variable in *home*."""
    env = {k: v for k, v in base.items() if k not in RELOCATION_VARIABLES and k not in _HOME_VARIABLES}
    env.update(
        {
            "HOME": str(home),
            "USERPROFILE": str(home),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "APPDATA": str(home / "AppData" / "Roaming"),
            "LOCALAPPDATA": str(home / "AppData" / "Local"),
        }
    )
    return env


def _platform() -> str:
    if sys.platform.startswith("win"):
        return "win32"
    return "darwin" if sys.platform == "darwin" else "linux"


class Demo:
    """Owns the demo home and the simulations writing into it."""

    def __init__(
        self,
        registry: Registry,
        *,
        base_env: Mapping[str, str],
        clock: Callable[[], datetime] | None = None,
        interval_s: float = 1.0,
        root: Path | None = None,
    ) -> None:
        self.registry = registry
        self.clock = clock or (lambda: datetime.now(UTC))
        self.interval_s = interval_s
        self.home = Path(tempfile.mkdtemp(prefix="cargento-demo-", dir=root))
        self.env = demo_env(base_env, self.home)
        self.simulations: dict[str, Simulation] = {}
        self.faults: dict[str, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Write every harness's initial store and start stepping the simulations."""
        now = self.clock()
        for key in self.registry.loaded():
            if not self.registry.implements(key, "simulate"):
                continue
            ctx = HarnessContext(now=now, env=self.env, home=self.home, platform=_platform(), cache=HarnessCache())
            got = self.registry.call(key, "simulate", home=self.home, ctx=ctx)
            if isinstance(got, Fault):
                self.faults[key] = got.message
            elif got.value is not None:
                self.simulations[key] = got.value
        self._thread = threading.Thread(target=self._run, name="cargento-demo", daemon=True)
        self._thread.start()

    def step(self, now: datetime | None = None) -> None:
        """Advance every simulation to *now*; a simulation that raises is dropped and recorded."""
        moment = now or self.clock()
        for key, sim in list(self.simulations.items()):
            try:
                sim.step(moment)
            except Exception as exc:  # a broken demo must not stop the others
                self.faults[key] = f"{type(exc).__name__}: {exc}"
                del self.simulations[key]

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.step()

    def stop(self) -> None:
        """Stop stepping and remove the demo home."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        for sim in self.simulations.values():
            close = getattr(sim, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:  # closing a demo store must not stop the cleanup
                    pass
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> Demo:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
