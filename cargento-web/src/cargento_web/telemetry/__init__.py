"""Telemetry in: the harnesses' own OpenTelemetry, received on loopback and read from local
telemetry files, mapped onto the sessions it names.

Off under ``--no-events`` and ``--otlp-port 0``. The figures (exact output tokens and their
rate, cost, API errors, tool decisions) go to ``/api/data`` under ``telemetry`` and never to
disk; they corroborate a row and never decide its state. The receiver's last delivery per
harness is kept in ``cargento-telemetry.json`` so ``cargento --diagnose`` can say which
harnesses are feeding.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cargento.atomicfile import write_atomic
from cargento.ownstore import OwnStore
from cargento.readers.regular import read_regular
from cargento.statedir import state_dir
from cargento.telemetry import TelemetryVocabulary
from cargento.telemetry.declared import declared_vocabularies

from cargento_web.extensions import Extension, ExtensionContext
from cargento_web.telemetry.ledger import STALE_AFTER, Ledger

if TYPE_CHECKING:
    from cargento.cli import Options

__all__ = ["FEEDS_FILE", "Telemetry", "create", "own_stores", "vocabularies"]

log = logging.getLogger("cargento_web")

#: Where the last delivery per harness is kept for ``--diagnose``.
FEEDS_FILE = "cargento-telemetry.json"
#: How often local telemetry files are read (and the demo feeds), in seconds.
POLL_S = 5.0
#: The page hears of new figures at most this often, in seconds.
CHANGE_EVERY_S = 2.0
#: The feeds file is rewritten at most this often, in seconds.
FEEDS_EVERY_S = 60.0


def endpoint_for(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def vocabularies(registry: Any, env: Mapping[str, str], endpoint: str) -> dict[str, TelemetryVocabulary]:
    """Every loaded harness's telemetry vocabulary (a failing plugin's is left out)."""
    return declared_vocabularies(registry, env, endpoint)


class Telemetry(Extension):
    name = "telemetry"

    def __init__(self, context: ExtensionContext, *, receiver_on: bool, reason: str | None) -> None:
        from cargento_web.telemetry.files import TelemetryFiles
        from cargento_web.telemetry.receiver import Receiver, receiver_app

        self.context = context
        endpoint = endpoint_for(context.options.otlp_port or 4318)
        self.vocabularies = vocabularies(context.builder.registry, context.env, endpoint)
        self.ledger = Ledger(self.vocabularies)
        self.files = TelemetryFiles(self.ledger, [f for v in self.vocabularies.values() for f in v.files])
        self.reason = reason
        self.receiver: Receiver | None = None
        self._stop = threading.Event()
        self._pending = threading.Event()
        self._feeds_written: dict[str, str] = {}
        self._feeds_at = 0.0
        if receiver_on:
            self.receiver = Receiver(receiver_app(self.ledger, self._pending.set), context.options.otlp_port)
            self.receiver.start()
        self.demo = None
        if context.demo:
            from cargento_web.telemetry.demo import DemoTelemetry

            self.demo = DemoTelemetry(self.ledger, context.latest_board)
        self._thread = threading.Thread(target=self._run, name="cargento-telemetry", daemon=True)
        self._thread.start()

    # -- the background beat: files, the demo, coalesced change notices -------------------

    def _run(self) -> None:
        import time

        last_poll = 0.0
        while not self._stop.wait(CHANGE_EVERY_S):
            now = datetime.now(UTC)
            if time.monotonic() - last_poll >= POLL_S:
                last_poll = time.monotonic()
                try:
                    fed = self.files.poll(now)
                    if self.demo is not None:
                        fed += self.demo.feed(now)
                except Exception:
                    log.exception("reading telemetry files failed")
                    fed = 0
                if fed:
                    self._pending.set()
                self._write_feeds(now)
            if self._pending.is_set():
                self._pending.clear()
                self.context.changed()

    def _write_feeds(self, now: datetime) -> None:
        import time

        feeds = {h: f["last_at"] for h, f in self.ledger.feeds(now).items()}
        if feeds == self._feeds_written or (time.monotonic() - self._feeds_at < FEEDS_EVERY_S and self._feeds_written):
            return
        try:
            write_atomic(self.context.state_dir / FEEDS_FILE, json.dumps({"schema": 1, "feeds": feeds}), durable=False)
        except OSError as exc:
            log.warning("cannot keep the telemetry feed times: %s", exc)
            return
        self._feeds_written = feeds
        self._feeds_at = time.monotonic()

    # -- the extension ------------------------------------------------------------------

    def document(self) -> Mapping[str, Any]:
        now = datetime.now(UTC)
        return {
            "telemetry": {
                "receiver": self._receiver_status(),
                "feeds": self.ledger.feeds(now),
                "sessions": self.ledger.snapshot(now),
            }
        }

    def _receiver_status(self) -> dict[str, Any]:
        if self.receiver is None:
            return {"state": "off", "reason": self.reason}
        return {"state": self.receiver.state, "port": self.receiver.port, "reason": self.receiver.reason}

    def page_config(self) -> Mapping[str, Any]:
        return {
            "receiver": self._receiver_status(),
            "harnesses": sorted(self.vocabularies),
            "stale_after_s": STALE_AFTER.total_seconds(),
        }

    def own_stores(self) -> Iterable[OwnStore]:
        return ()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        if self.receiver is not None:
            self.receiver.stop()
        self._write_feeds(datetime.now(UTC))


def create(context: ExtensionContext) -> Telemetry:
    options = context.options
    if options.no_events:
        return Telemetry(context, receiver_on=False, reason="lifecycle events are off for this run (--no-events)")
    if options.otlp_port == 0:
        return Telemetry(context, receiver_on=False, reason="the receiver is off for this run (--otlp-port 0)")
    if context.replay:
        # A replay shows a moment already past: a live export says nothing about it, and the
        # port stays free for the dashboard that maps what runs now.
        return Telemetry(context, receiver_on=False, reason="a replay (--as-of) takes no live telemetry")
    return Telemetry(context, receiver_on=True, reason=None)


def own_stores(env: Mapping[str, str], options: Options | None = None) -> Iterable[OwnStore]:
    """For ``--diagnose``: which harnesses fed the receiver, and when each last did."""
    path = state_dir(env) / FEEDS_FILE
    try:
        data = json.loads(read_regular(path, 65536))
        feeds = data["feeds"]
        assert isinstance(feeds, dict)
    except FileNotFoundError:
        return [OwnStore(name="telemetry", path=str(path), status="absent", detail="no harness has fed the receiver")]
    except (OSError, ValueError, KeyError, TypeError, AssertionError) as exc:
        return [OwnStore(name="telemetry", path=str(path), status="unreadable", detail=type(exc).__name__)]
    detail = ", ".join(f"{h} last fed {at}" for h, at in sorted(feeds.items())) or "no harness has fed the receiver"
    return [OwnStore(name="telemetry", path=str(Path(path)), status="read", detail=detail)]
