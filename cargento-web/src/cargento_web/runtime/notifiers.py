"""Desktop notification backends, each reporting honestly what became of a send.

A :class:`Notifier` hands one notification to this machine's notification service and says
which of five things happened (:data:`Outcome`). None of them is "seen": macOS's osascript
exits zero under Do Not Disturb, and a freedesktop server accepts a notification it may never
draw. Backends:

* :class:`OsascriptNotifier` (macOS, the specification's backend);
* :class:`FreedesktopNotifier` (Linux, beyond the specification): a ``Notify`` call to
  ``org.freedesktop.Notifications`` on the session bus, made directly with ``dbus-fast`` so
  a service error is reported rather than logged and swallowed;
* :class:`DesktopNotifierBackend` (Windows, where the ``desktop-notifier`` library runs);
* :class:`MemoryNotifier` for tests and :class:`NoBackend` where nothing is available.

:func:`detect_notifier` picks one for the platform and checks availability once, at start.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import subprocess
import threading
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

import attrs
from cargento.sharedmethods import shared_methods

__all__ = [
    "OUTCOMES",
    "DesktopNotifierBackend",
    "FreedesktopNotifier",
    "MemoryNotifier",
    "NoBackend",
    "Notifier",
    "OsascriptNotifier",
    "Outcome",
    "Sent",
    "detect_notifier",
    "session_bus_address",
]

Outcome = Literal["handed-over", "service-error", "could-not-start", "timed-out", "no-backend"]
OUTCOMES: tuple[Outcome, ...] = ("handed-over", "service-error", "could-not-start", "timed-out", "no-backend")
#: Seconds a send may take before it is recorded as timed out.
SEND_TIMEOUT_S = 5.0
APP_NAME = "Cargento"

T = TypeVar("T")
_BUS_NAME = "org.freedesktop.Notifications"
_BUS_PATH = "/org/freedesktop/Notifications"


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Sent:
    """The outcome of one send, with the service's words where it gave any."""

    outcome: Outcome
    detail: str | None = None


class Notifier(Protocol):
    """One way to reach the human. ``available`` and ``detail`` are decided at start."""

    name: str
    available: bool
    detail: str

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        """Hand one notification over; never raises."""
        ...


class NoBackend:
    """This platform has no notification backend in this build (or none answered at start)."""

    available = False

    def __init__(self, detail: str, name: str = "none") -> None:
        self.name = name
        self.detail = detail

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        return Sent(outcome="no-backend", detail=self.detail)


class MemoryNotifier:
    """Records every send in memory and answers with a chosen outcome (tests, the demo)."""

    name = "memory"

    def __init__(self, outcome: Outcome = "handed-over", *, available: bool = True) -> None:
        self.outcome: Outcome = outcome
        self.available = available
        self.detail = "in-memory notifier"
        self.sent: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self.delivered = threading.Condition(self._lock)

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        with self._lock:
            self.sent.append((title, body))
            self.delivered.notify_all()
        return Sent(outcome=self.outcome if self.available else "no-backend")

    def wait_for(self, count: int, timeout_s: float = 5.0) -> bool:
        """Block until *count* sends have happened (for tests of the delivery thread)."""
        with self._lock:
            return self.delivered.wait_for(lambda: len(self.sent) >= count, timeout=timeout_s)


_APPLESCRIPT = ("on run argv", "display notification (item 2 of argv) with title (item 1 of argv)", "end run")


class OsascriptNotifier:
    """macOS: ``osascript`` with the title and text passed as arguments (never spliced
    into the script, so no quoting can break out)."""

    name = "osascript"

    def __init__(self, executable: str | None = None) -> None:
        found = executable or shutil.which("osascript")
        self.executable = found
        self.available = found is not None
        self.detail = f"macOS notifications through {found}" if found else "osascript was not found on PATH"

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        if self.executable is None:
            return Sent(outcome="no-backend", detail=self.detail)
        argv = [self.executable]
        for line in _APPLESCRIPT:
            argv += ["-e", line]
        argv += [title, body]
        try:
            done = subprocess.run(argv, capture_output=True, timeout=timeout_s, check=False, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return Sent(outcome="timed-out", detail=f"osascript did not return within {timeout_s:g} s")
        except OSError as exc:
            return Sent(outcome="could-not-start", detail=f"osascript could not be started: {exc.strerror or exc}")
        if done.returncode != 0:
            words = done.stderr.decode("utf-8", "replace").strip()[:200]
            return Sent(
                outcome="service-error",
                detail=f"osascript exited {done.returncode}: {words}"
                if words
                else f"osascript exited {done.returncode}",
            )
        return Sent(outcome="handed-over")


def session_bus_address(env: Mapping[str, str]) -> str | None:
    """The D-Bus session bus address: ``DBUS_SESSION_BUS_ADDRESS``, else the
    ``$XDG_RUNTIME_DIR/bus`` socket when it exists."""
    value = env.get("DBUS_SESSION_BUS_ADDRESS", "").strip()
    if value:
        return value
    runtime = env.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and Path(runtime, "bus").exists():
        return f"unix:path={Path(runtime, 'bus')}"
    return None


class FreedesktopNotifier:
    """Linux: ``org.freedesktop.Notifications.Notify`` on the session bus (dbus-fast)."""

    name = "freedesktop"

    def __init__(self, address: str) -> None:
        self.address = address
        self.available = False
        self.detail = "not checked"

    def check(self, timeout_s: float = 2.0) -> FreedesktopNotifier:
        """Decide availability: the bus answers and a notification service is on it (or
        activatable). Returns self."""
        try:
            found, words = _run(self._probe(), timeout_s)
        except TimeoutError:
            found, words = False, f"the session bus did not answer within {timeout_s:g} s"
        except Exception as exc:  # any bus failure is an unavailable backend, never a crash
            found, words = False, f"the session bus could not be reached: {exc}"
        self.available = found
        self.detail = words
        return self

    async def _probe(self) -> tuple[bool, str]:
        from dbus_fast import Message, MessageType
        from dbus_fast.aio import MessageBus

        bus = await MessageBus(bus_address=self.address).connect()
        try:
            for member in ("ListNames", "ListActivatableNames"):
                reply = await bus.call(
                    Message(
                        destination="org.freedesktop.DBus",
                        path="/org/freedesktop/DBus",
                        interface="org.freedesktop.DBus",
                        member=member,
                    )
                )
                if reply is not None and reply.message_type == MessageType.METHOD_RETURN and _BUS_NAME in reply.body[0]:
                    return (
                        True,
                        f"freedesktop notifications on the session bus ({(member == 'ListNames' and 'running') or 'activatable'})",
                    )
            return False, "no org.freedesktop.Notifications service on the session bus"
        finally:
            bus.disconnect()

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        try:
            return _run(self._notify(title, body), timeout_s)
        except TimeoutError:
            return Sent(outcome="timed-out", detail=f"the notification service did not answer within {timeout_s:g} s")
        except Exception as exc:
            return Sent(outcome="could-not-start", detail=f"the session bus could not be reached: {exc}")

    async def _notify(self, title: str, body: str) -> Sent:
        from dbus_fast import Message, MessageType, Variant
        from dbus_fast.aio import MessageBus

        bus = await MessageBus(bus_address=self.address).connect()
        try:
            reply = await bus.call(
                Message(
                    destination=_BUS_NAME,
                    path=_BUS_PATH,
                    interface=_BUS_NAME,
                    member="Notify",
                    signature="susssasa{sv}i",
                    body=[APP_NAME, 0, "", title, body, [], {"urgency": Variant("y", 1)}, -1],
                )
            )
        finally:
            bus.disconnect()
        if reply is None:
            return Sent(outcome="service-error", detail="the notification service sent no reply")
        if reply.message_type == MessageType.ERROR:
            words = reply.body[0] if reply.body and isinstance(reply.body[0], str) else ""
            return Sent(outcome="service-error", detail=f"{reply.error_name}: {words}".strip().rstrip(":"))
        return Sent(outcome="handed-over", detail=f"notification id {reply.body[0]}" if reply.body else None)


class DesktopNotifierBackend:
    """Windows: the ``desktop-notifier`` library. It logs rather than raises on some
    failures, so a hand-over here is weaker evidence than on the other backends."""

    name = "desktop-notifier"

    def __init__(self) -> None:
        try:
            import desktop_notifier  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
        except ImportError:
            self.available = False
            self.detail = "desktop-notifier is not installed"
        else:
            self.available = True
            self.detail = "Windows notifications through desktop-notifier"

    def send(self, title: str, body: str, *, timeout_s: float = SEND_TIMEOUT_S) -> Sent:
        if not self.available:
            return Sent(outcome="no-backend", detail=self.detail)
        try:
            from desktop_notifier import DesktopNotifier

            async def go() -> None:
                await DesktopNotifier(app_name=APP_NAME).send(title=title, message=body)

            _run(go(), timeout_s)
        except TimeoutError:
            return Sent(outcome="timed-out", detail=f"desktop-notifier did not return within {timeout_s:g} s")
        except Exception as exc:
            return Sent(outcome="service-error", detail=f"desktop-notifier failed: {exc}")
        return Sent(outcome="handed-over")


def _run(coro: Coroutine[Any, Any, T], timeout_s: float) -> T:
    """Run *coro* to completion on a private event loop within *timeout_s*."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout_s)

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(bounded())
    finally:
        loop.close()


def detect_notifier(platform: str, env: Mapping[str, str] | None = None) -> Notifier:
    """The backend for *platform* (``darwin``, ``linux``, ``win32``), availability checked."""
    env = os.environ if env is None else env
    if platform == "darwin":
        mac = OsascriptNotifier()
        return mac if mac.available else NoBackend(mac.detail, name="osascript")
    if platform == "linux":
        # Found, not imported (10 ms of every start): the check and the sends import it.
        if importlib.util.find_spec("dbus_fast") is None:
            return NoBackend("dbus-fast is not installed (pip install 'cargento-core[notify]')", name="freedesktop")
        address = session_bus_address(env)
        if address is None:
            return NoBackend(
                "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset): no desktop here", name="freedesktop"
            )
        linux = FreedesktopNotifier(address).check()
        return linux if linux.available else NoBackend(linux.detail, name="freedesktop")
    if platform == "win32":
        win = DesktopNotifierBackend()
        return win if win.available else NoBackend(win.detail, name="desktop-notifier")
    return NoBackend(f"no notification backend for platform {platform!r} in this build")
