"""``cargento_web.cli.run`` dispatch, the demo seam, and the event hub seam."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cargento.cli import Options
from cargento_web import cli, lifecycle, server
from cargento_web.environment import serving_environment
from cargento_web.settings import Settings


@pytest.mark.parametrize(
    ("flags", "called"),
    [({"status": True}, "status"), ({"stop": True}, "stop"), ({"daemon": True}, "daemon"), ({}, "serve")],
)
def test_run_dispatches(monkeypatch: pytest.MonkeyPatch, flags: dict[str, Any], called: str) -> None:
    seen: list[str] = []

    def status(port: int) -> int:
        seen.append("status")
        return 0

    def stop(port: int) -> int:
        seen.append("stop")
        return 0

    def daemon(options: Options) -> int:
        seen.append("daemon")
        return 0

    def serve(options: Options, served: object, log_path: str | None = None) -> int:
        seen.append("serve")
        return 0

    monkeypatch.setattr(lifecycle, "status", status)
    monkeypatch.setattr(lifecycle, "stop", stop)
    monkeypatch.setattr(lifecycle, "daemon", daemon)
    monkeypatch.setattr(cli, "serve", serve)
    assert cli.run(Options(**flags)) == 0
    assert seen == [called]


def test_run_turns_an_os_error_into_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(port: int) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(lifecycle, "status", boom)
    assert cli.run(Options(status=True)) == 1
    assert capsys.readouterr().err == "cargento: Permission denied\n"


def test_demo_serves_a_temporary_home_and_removes_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    got: list[Any] = []

    def fake_serve(options: Options, served: Any, log_path: str | None = None) -> int:
        got.append(served)
        assert served.home.is_dir() and served.env["HOME"] == str(served.home)
        served.close()
        return 0

    monkeypatch.setattr(cli, "serve", fake_serve)
    assert cli.run(Options(demo=True)) == 0
    err = capsys.readouterr().err
    assert f"demo home {got[0].home}" in err
    assert got[0].home != serving_environment(Options()).home
    assert not got[0].home.exists()


def test_serving_environment_defaults_to_the_given_environment(tmp_path: Path) -> None:
    served = serving_environment(Options(), {"HOME": str(tmp_path), "X": "1"})
    assert served.home == tmp_path and served.env["X"] == "1"


def test_make_hub_publishes_a_capability_only_with_events(builder_for: Any, tmp_path: Path) -> None:
    builder = builder_for([], tmp_path, env={"CARGENTO_HOME": str(tmp_path / "state")})
    settings = Settings(port=4553)
    on = server.make_hub(Options(), builder, settings)
    off = server.make_hub(Options(no_events=True), builder, settings)
    try:
        assert isinstance(getattr(on, "capability", None), str)
        assert getattr(off, "capability", "absent") is None
        assert off is not None and off.routes(None) == []  # type: ignore[attr-defined]
    finally:
        for hub in (on, off):
            close = getattr(hub, "close", None)
            if callable(close):
                close()


def test_the_listening_socket_names_tcp_so_responses_are_not_delayed() -> None:
    """asyncio only sets TCP_NODELAY on connections accepted from an IPPROTO_TCP socket."""
    import socket

    from cargento_web.probe import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        client = socket.create_connection(sock.getsockname())
        sock.setblocking(True)
        conn, _ = sock.accept()
        try:
            import asyncio.base_events as base

            # typeshed leaves out this private asyncio helper; it is what asyncio does with every accepted connection
            base._set_nodelay(conn)  # type: ignore[attr-defined]
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        finally:
            conn.close()
            client.close()
    finally:
        sock.close()
