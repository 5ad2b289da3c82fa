"""Notification backends, each reporting what became of a send.

The freedesktop backend is exercised against a private ``dbus-daemon`` on a socket in a temp
directory, with a fake ``org.freedesktop.Notifications`` service written here (dbus-fast),
so no desktop is needed. The osascript backend is exercised with stand-in executables.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cargento_web.runtime.notifiers import (
    FreedesktopNotifier,
    NoBackend,
    OsascriptNotifier,
    detect_notifier,
    session_bus_address,
)

DBUS_DAEMON = shutil.which("dbus-daemon")
#: .ci/run installs dbus, so under CI a missing daemon fails the tests instead of skipping them.
needs_dbus = pytest.mark.skipif(
    DBUS_DAEMON is None and not os.environ.get("CI"), reason="dbus-daemon is not installed (Debian package dbus-daemon)"
)


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX stand-in scripts")
class TestOsascript:
    def test_handed_over_passes_title_and_text_as_arguments(self, tmp_path: Path) -> None:
        log = tmp_path / "argv"
        exe = _script(tmp_path, "osascript", f'printf "%s\\n" "$@" > "{log}"')
        sent = OsascriptNotifier(exe).send('Claude "needs" input', "it's $(rm -rf /) waiting")
        assert sent.outcome == "handed-over"
        argv = log.read_text().splitlines()
        assert argv[-2:] == ['Claude "needs" input', "it's $(rm -rf /) waiting"], (
            "passed as data, never spliced into the script"
        )

    def test_service_error(self, tmp_path: Path) -> None:
        exe = _script(tmp_path, "osascript", 'echo "execution error: Not authorised" >&2; exit 1')
        sent = OsascriptNotifier(exe).send("t", "b")
        assert sent.outcome == "service-error" and sent.detail is not None and "Not authorised" in sent.detail

    def test_timed_out(self, tmp_path: Path) -> None:
        exe = _script(tmp_path, "osascript", "sleep 5")
        assert OsascriptNotifier(exe).send("t", "b", timeout_s=0.3).outcome == "timed-out"

    def test_could_not_start(self, tmp_path: Path) -> None:
        exe = tmp_path / "osascript"
        exe.write_text("not executable")
        assert OsascriptNotifier(str(exe)).send("t", "b").outcome == "could-not-start"


def test_darwin_without_osascript_has_no_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    found = detect_notifier("darwin", {})
    assert isinstance(found, NoBackend) and not found.available
    assert found.send("t", "b").outcome == "no-backend"


def test_linux_without_a_session_bus_has_no_backend(tmp_path: Path) -> None:
    found = detect_notifier("linux", {"XDG_RUNTIME_DIR": str(tmp_path)})
    assert not found.available and "session bus" in found.detail


def test_unknown_platform_has_no_backend() -> None:
    assert detect_notifier("sunos", {}).available is False


def test_bus_address_from_the_runtime_dir(tmp_path: Path) -> None:
    (tmp_path / "bus").touch()
    assert session_bus_address({"XDG_RUNTIME_DIR": str(tmp_path)}) == f"unix:path={tmp_path / 'bus'}"
    assert session_bus_address({"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x"}) == "unix:path=/x"


_SERVICE = textwrap.dedent(
    """
    import asyncio, sys, json
    from dbus_fast.aio import MessageBus
    from dbus_fast.service import ServiceInterface, method
    from dbus_fast import DBusError

    MODE, LOG = sys.argv[2], sys.argv[3]

    class Notifications(ServiceInterface):
        def __init__(self):
            super().__init__("org.freedesktop.Notifications")

        @method()
        async def Notify(self, app_name: "s", replaces_id: "u", app_icon: "s", summary: "s", body: "s",
                         actions: "as", hints: "a{sv}", expire_timeout: "i") -> "u":
            with open(LOG, "a") as fh:
                fh.write(json.dumps([app_name, summary, body, hints["urgency"].value]) + "\\n")
            if MODE == "error":
                raise DBusError("org.freedesktop.Notifications.Error.Refused", "do not disturb")
            if MODE == "slow":
                await asyncio.sleep(30)
            return 7

        @method()
        def GetServerInformation(self) -> "ssss":
            return ["fake", "cargento-tests", "1", "1.2"]

    async def main():
        bus = await MessageBus(bus_address=sys.argv[1]).connect()
        bus.export("/org/freedesktop/Notifications", Notifications())
        await bus.request_name("org.freedesktop.Notifications")
        print("ready", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


@pytest.fixture
def private_bus(tmp_path: Path) -> Iterator[str]:
    """A private session bus; yields its address."""
    assert DBUS_DAEMON is not None
    socket = tmp_path / "bus"
    daemon = subprocess.Popen(
        [DBUS_DAEMON, "--session", "--nofork", "--print-address=1", f"--address=unix:path={socket}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert daemon.stdout is not None
        address = daemon.stdout.readline().strip()
        assert address.startswith("unix:"), address
        yield address
    finally:
        daemon.terminate()
        daemon.wait(timeout=10)


@pytest.fixture
def fake_service(private_bus: str, tmp_path: Path) -> Iterator[tuple[str, Path, object]]:
    started: list[subprocess.Popen[str]] = []
    log = tmp_path / "notifications.jsonl"

    def start(mode: str) -> None:
        script = tmp_path / "fake_notifications.py"
        script.write_text(_SERVICE)
        proc = subprocess.Popen(
            [sys.executable, str(script), private_bus, mode, str(log)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONWARNINGS": "ignore"},
        )
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"

    try:
        yield private_bus, log, start
    finally:
        for proc in started:
            proc.terminate()
            proc.wait(timeout=10)


@needs_dbus
def test_freedesktop_handed_over(fake_service: tuple[str, Path, object]) -> None:
    address, log, start = fake_service
    start("ok")  # type: ignore[operator]
    found = detect_notifier("linux", {"DBUS_SESSION_BUS_ADDRESS": address})
    assert isinstance(found, FreedesktopNotifier) and found.available
    sent = found.send("Claude · api needs input", "asking to use Bash")
    assert sent.outcome == "handed-over" and sent.detail == "notification id 7"
    assert log.read_text().strip() == '["Cargento", "Claude \\u00b7 api needs input", "asking to use Bash", 1]'


@needs_dbus
def test_freedesktop_service_error(fake_service: tuple[str, Path, object]) -> None:
    address, _, start = fake_service
    start("error")  # type: ignore[operator]
    sent = FreedesktopNotifier(address).check().send("t", "b")
    assert sent.outcome == "service-error"
    assert sent.detail == "org.freedesktop.Notifications.Error.Refused: do not disturb"


@needs_dbus
def test_freedesktop_timed_out(fake_service: tuple[str, Path, object]) -> None:
    address, _, start = fake_service
    start("slow")  # type: ignore[operator]
    began = time.monotonic()
    sent = FreedesktopNotifier(address).check().send("t", "b", timeout_s=0.5)
    assert sent.outcome == "timed-out" and time.monotonic() - began < 5


@needs_dbus
def test_a_bus_with_no_notification_service_is_no_backend(private_bus: str) -> None:
    found = detect_notifier("linux", {"DBUS_SESSION_BUS_ADDRESS": private_bus})
    assert isinstance(found, NoBackend) and "no org.freedesktop.Notifications" in found.detail


@needs_dbus
def test_a_bus_that_went_away_could_not_start(fake_service: tuple[str, Path, object], tmp_path: Path) -> None:
    address, _, start = fake_service
    start("ok")  # type: ignore[operator]
    notifier = FreedesktopNotifier(address).check()
    assert notifier.available
    gone = FreedesktopNotifier(f"unix:path={tmp_path / 'no-such-bus'}")
    assert gone.send("t", "b").outcome == "could-not-start"


@needs_dbus
def test_end_to_end_a_gate_event_reaches_the_fake_service(
    fake_service: tuple[str, Path, object], tmp_path: Path
) -> None:
    from datetime import UTC, datetime

    from cargento_web.runtime.hub import EventHub

    address, log, start = fake_service
    start("ok")  # type: ignore[operator]
    from datetime import timedelta

    hub = EventHub(
        clock=lambda: datetime.now(UTC),
        state_dir=tmp_path / "state",
        notifier=detect_notifier("linux", {"DBUS_SESSION_BUS_ADDRESS": address}),
    )
    hub.ingest("claude", {"session_id": "s1", "hook_event_name": "PermissionRequest", "tool_name": "Bash"})
    assert hub.deliveries_for("claude", "s1") == (), "not yet confirmed"
    hub.tick(datetime.now(UTC) + timedelta(seconds=6))  # the gate still stands: confirmed
    assert hub.alerts.drain(10)
    (delivery,) = hub.deliveries_for("claude", "s1")
    assert delivery.outcome == "handed-over" and delivery.backend == "freedesktop"
    assert "asking to use Bash" in log.read_text()
    assert hub.status()["notifications"]["available"] is True
    hub.close()
