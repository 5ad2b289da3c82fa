"""Where the Goose database is searched on each platform (checked against Goose's own paths:
the etcetera app strategy, XDG everywhere but Windows)."""

from __future__ import annotations

from pathlib import Path

from cargento.testing import make_context
from cargento_harness_goose import locations, plugin


def paths(home: Path, platform: str, env: dict[str, str] | None = None) -> list[Path]:
    ctx = make_context(home, platform=platform, env=env)
    return [r.database for r in locations.roots(ctx)]


def test_linux_default(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    assert [r.database for r in locations.roots(ctx)] == [tmp_path / ".local/share/goose/sessions/sessions.db"]


def test_xdg_data_home_when_absolute_only(tmp_path: Path) -> None:
    assert paths(tmp_path, "linux", {"XDG_DATA_HOME": "/data"}) == [Path("/data/goose/sessions/sessions.db")]
    assert paths(tmp_path, "linux", {"XDG_DATA_HOME": "relative/dir"}) == [
        tmp_path / ".local/share/goose/sessions/sessions.db"
    ]


def test_macos_uses_the_xdg_layout_too(tmp_path: Path) -> None:
    assert paths(tmp_path, "darwin", {"XDG_DATA_HOME": ""}) == [tmp_path / ".local/share/goose/sessions/sessions.db"]


def test_windows_appdata_then_localappdata(tmp_path: Path) -> None:
    got = paths(
        tmp_path, "win32", {"APPDATA": "C:/Users/u/AppData/Roaming", "LOCALAPPDATA": "C:/Users/u/AppData/Local"}
    )
    assert got == [
        Path("C:/Users/u/AppData/Roaming/Block/goose/data/sessions/sessions.db"),
        Path("C:/Users/u/AppData/Local/Block/goose/data/sessions/sessions.db"),
    ]


def test_every_searched_path_is_reported(tmp_path: Path) -> None:
    found = plugin.discover(ctx=make_context(tmp_path, platform="win32", env={}))
    assert len(found.locations) == 2 and all(loc.status == "missing" for loc in found.locations)
    assert all(loc.role == "database" for loc in found.locations)
