"""``cargento --forget``: refused whole while a dashboard answers on --port, naming the three
stores; against a stopped one it deletes the history and the session ends and keeps the rest."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cargento.testing.fakes import FakeHarness
from cargento_web.dismissals.store import DISMISSALS_FILE
from cargento_web.history.store import HISTORY_FILE
from cargento_web.runtime.stores import ENDS_FILE

KEPT = ("cargento-annotations.json", DISMISSALS_FILE, "cargento-deliveries.json")


def run_forget(port: int, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CARGENTO_HOME": str(home)}
    return subprocess.run(
        [str(Path(sys.executable).with_name("cargento")), "--forget", "--port", str(port)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def seed(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    for name in (HISTORY_FILE, ENDS_FILE, *KEPT):
        (home / name).write_text("{}")


def test_refused_whole_while_a_dashboard_answers(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home)
    server = serve(builder_for([("fake", FakeHarness("fake"))], tmp_path))
    done = run_forget(server.port, home)
    assert done.returncode == 1
    for name in (HISTORY_FILE, ENDS_FILE, "cargento-annotations.json"):
        assert name in done.stderr, f"the refusal names {name}"
    assert f"--port {server.port} --stop" in done.stderr
    assert sorted(p.name for p in home.iterdir()) == sorted((HISTORY_FILE, ENDS_FILE, *KEPT)), "nothing deleted"


def test_against_a_stopped_dashboard_it_deletes_history_and_ends(serve: Any, builder_for: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    seed(home)
    server = serve(builder_for([("fake", FakeHarness("fake"))], tmp_path))
    port = server.port
    server.stop()
    done = run_forget(port, home)
    assert done.returncode == 0, done.stderr
    left = sorted(p.name for p in home.iterdir() if p.name != ".cargento-annotations.json.lock")
    assert left == sorted(KEPT), "what you typed and the other stores stay (the annotation store's lock aside)"
    assert f"deleted {home / HISTORY_FILE}" in done.stdout and f"deleted {home / ENDS_FILE}" in done.stdout
    again = run_forget(port, home)
    assert again.returncode == 0 and "not there" in again.stdout, "a second run finds nothing and says so"


def test_a_feature_that_keeps_what_forget_covers_takes_its_turn(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    import socket
    import types

    from cargento_web import forget as forget_module

    calls: list[Path] = []
    feature = types.ModuleType("cargento_web_tests_forgetting_feature")

    def forget_records(folder: Path) -> list[str]:
        calls.append(folder)
        return [f"cleared the discard records in {folder}"]

    feature.forget = forget_records  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, feature.__name__, feature)
    monkeypatch.setattr(forget_module, "FEATURES", ("cargento_web.history", feature.__name__))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert forget_module.forget(port, {"CARGENTO_HOME": str(tmp_path)}) == 0
    assert calls == [tmp_path]
    assert "cleared the discard records" in capsys.readouterr().out
