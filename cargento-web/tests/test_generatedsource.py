"""The source attrs files of its generated methods is forgotten; the methods keep working."""

from __future__ import annotations

import linecache
import traceback
from pathlib import Path

import attrs
import pytest
from cargento_web.generatedsource import GENERATED_PREFIX, forget_generated_sources


def test_the_generated_sources_go_and_the_classes_still_work() -> None:
    import cargento.board  # noqa: F401  (the board's models: attrs classes by the dozen)

    @attrs.frozen
    class Point:
        x: int
        y: int = attrs.field(validator=attrs.validators.instance_of(int))

    @attrs.define
    class Line:
        a: Point
        b: Point

    held = [n for n in linecache.cache if n.startswith(GENERATED_PREFIX)]
    # (A server built earlier in this process forgot the board's own already.)
    assert any(n.endswith(".Point>") for n in held) and any(n.endswith(".Line>") for n in held)
    freed = forget_generated_sources()
    assert freed > 1000, f"{freed} bytes"
    assert not [n for n in linecache.cache if n.startswith(GENERATED_PREFIX)]
    p = Point(1, 2)
    assert p == Point(1, 2) and repr(p) == "Point(x=1, y=2)"
    with pytest.raises(TypeError) as caught:
        Point(1, "two")  # type: ignore[arg-type]
    assert "__init__" in "".join(traceback.format_exception(caught.value)), "a traceback through one still formats"
    assert forget_generated_sources() == 0, "nothing left to forget"


def test_the_server_forgets_them_once_its_features_are_made(tmp_path: Path) -> None:
    import os
    from datetime import UTC, datetime

    from cargento.cli import Options
    from cargento_web.environment import Served
    from cargento_web.server import build_app
    from cargento_web.settings import Settings

    @attrs.frozen
    class Marker:  # filed before the server is built, as the board's own classes are
        x: int

    assert any("Marker" in n for n in linecache.cache if n.startswith(GENERATED_PREFIX))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "CARGENTO_LOAD_PLUGINS": "claude"}
    served = Served(env=env, home=tmp_path)
    settings = Settings(port=1, pid=os.getpid(), started_at=datetime.now(UTC), version="test")
    app, _hub = build_app(Options(demo=True), served, settings)  # its stores in tmp_path/.cargento
    assert app is not None
    assert not [n for n in linecache.cache if n.startswith(GENERATED_PREFIX)], "build_app left attrs sources filed"
