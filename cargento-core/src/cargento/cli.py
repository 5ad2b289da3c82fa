"""The ``cargento`` command.

``--diagnose``, ``--json`` and ``cargento hooks`` run in core and the harness plugins alone;
serving the dashboard (and ``--daemon``, ``--status``, ``--stop``, ``--demo``) is handed to the
implementation registered in the :data:`SERVE_GROUP` entry-point group (cargento-web registers
``web = cargento_web.cli:run``), loaded only then.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import NoReturn, TypeVar

import attrs

from cargento.sharedmethods import shared_methods
from cargento.timestamps import parse_ts

__all__ = ["SERVE_GROUP", "Options", "main", "parse_args", "serve_implementation"]

#: The entry-point group a dashboard distribution registers its ``run(options) -> int`` in.
SERVE_GROUP = "cargento.serve"

DEFAULT_PORT = 4553
DEFAULT_HISTORY_DAYS = 14.0
DEFAULT_HISTORY_MAX_BYTES = 1_048_576
#: The standard OTLP/HTTP port.
DEFAULT_OTLP_PORT = 4318
ALLOWED_HOSTS = ("127.0.0.1", "0.0.0.0")


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Options:
    """The parsed command line, handed to the web app when it serves."""

    port: int = DEFAULT_PORT
    host: str = "127.0.0.1"
    window_hours: float = 24.0
    all: bool = False
    diagnose: bool = False
    json: bool = False
    as_of: datetime | None = None
    daemon: bool = False
    status: bool = False
    stop: bool = False
    demo: bool = False
    no_events: bool = False
    no_irreversible: bool = False
    no_notify: bool = False
    open_browser: bool = False
    verbose: bool = False
    #: One-shot: delete the history, session-end and discard records, clear reading
    #: permission (never the spend timestamps), and exit; refused while a dashboard answers.
    forget: bool = False
    #: ``--observer-model`` (True), ``--no-observer-model`` (False) or neither (None).
    observer_model: bool | None = None
    unasked_readings: bool = False
    interaction_origin_session: str | None = None
    interaction_origin_registration_file: str | None = None
    no_spacedock: bool = False
    no_tripwires: bool = False
    no_usage: bool = False
    no_git: bool = False
    no_dismiss: bool = False
    no_annotations: bool = False
    no_ask: bool = False
    no_focus: bool = False
    no_history: bool = False
    no_reach: bool = False
    reach_url: str | None = None
    no_quiet_hours: bool = False
    quiet_hours: str | None = None
    history_days: float = DEFAULT_HISTORY_DAYS
    history_max_bytes: int = DEFAULT_HISTORY_MAX_BYTES
    #: The OpenTelemetry (OTLP/HTTP) receiver's loopback port; 0 turns it off.
    otlp_port: int = DEFAULT_OTLP_PORT
    #: Push the board's metrics to this OTLP collector (``--otlp-endpoint``).
    otlp_endpoint: str | None = None


_N = TypeVar("_N", int, float)


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _host(text: str) -> str:
    if text not in ALLOWED_HOSTS:
        raise argparse.ArgumentTypeError(
            f"--host takes 127.0.0.1 (the default) or 0.0.0.0, not {text!r}: a narrower bind would not answer "
            "on loopback, where --status, --stop and the hook forwarders reach the dashboard"
        )
    return text


def _number(
    convert: Callable[[str], _N], takes: str, must: str, acceptable: Callable[[_N], bool]
) -> Callable[[str], _N]:
    """An argparse type: *convert* the text, refusing with *takes* when it is not a number and
    with *must* when it is not *acceptable* (both formatted with ``text`` and ``value``)."""

    def parse(text: str) -> _N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(takes.format(text=repr(text))) from None
        if not acceptable(value):
            raise argparse.ArgumentTypeError(must.format(text=repr(text), value=value))
        return value

    return parse


def _finite_positive(value: float) -> bool:
    return value > 0 and value != float("inf")


_port = _number(
    int,
    "port must be a whole number from 1 to 65535, not {text}",
    "port must be from 1 to 65535, not {value}",
    lambda v: 1 <= v <= 65535,
)
_hours = _number(
    float,
    "--window-hours takes a number of hours, not {text}",
    "--window-hours must be a positive number, not {text}",
    _finite_positive,
)
_positive_days = _number(
    float,
    "--history-days takes a number of days, not {text}",
    "--history-days must be more than zero, not {text}",
    _finite_positive,
)
_positive_bytes = _number(
    int,
    "--history-max-bytes takes a whole number of bytes, not {text}",
    "--history-max-bytes must be more than zero, not {text}",
    lambda v: v > 0,
)
_otlp_port = _number(
    int,
    "--otlp-port takes a whole number (0 turns it off), not {text}",
    "--otlp-port must be from 0 (off) to 65535, not {value}",
    lambda v: 0 <= v <= 65535,
)


def _web_url(flag: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if not (text.startswith("http://") or text.startswith("https://")) or len(text) > 2048:
            raise argparse.ArgumentTypeError(f"{flag} takes an http:// or https:// URL, not {text!r}")
        return text

    return parse


def _quiet_hours(text: str) -> str:
    from cargento.quiethours import QuietHoursError, parse_window

    try:
        parse_window(text)
    except QuietHoursError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text.strip()


def _origin_session(text: str) -> str:
    harness, sep, sid = text.partition(":")
    if not sep or not harness or not sid:
        raise argparse.ArgumentTypeError(f"--interaction-origin-session takes <harness>:<session id>, not {text!r}")
    return text


def _moment(text: str) -> datetime:
    value = parse_ts(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"--as-of takes an ISO-8601 timestamp (2026-11-30T10:00:00Z) or epoch seconds, not {text!r}"
        )
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="cargento",
        description="A local dashboard of live coding-agent sessions across ten harnesses.",
        epilog=(
            "cargento hooks --help: show, install or remove the bundled hooks and adapters. "
            "cargento telemetry --help: point a harness's own OpenTelemetry at the dashboard."
        ),
        allow_abbrev=False,
    )
    p.add_argument("--port", type=_port, default=DEFAULT_PORT, help="port (default 4553; 1-65535)")
    p.add_argument("--host", type=_host, default="127.0.0.1", help="bind address: 127.0.0.1 (default) or 0.0.0.0")
    p.add_argument("--window-hours", type=_hours, default=24.0, help="hide sessions idle longer than this (default 24)")
    p.add_argument("--all", action="store_true", help="show every session ever, including idle ones (like ?all=1)")
    p.add_argument(
        "--diagnose", action="store_true", help="print every plugin and every store path searched, then exit"
    )
    p.add_argument("--json", action="store_true", help="print one board snapshot as JSON (with --diagnose: the report)")
    p.add_argument(
        "--as-of", type=_moment, default=None, metavar="TIMESTAMP", help="evaluate the board as of this moment"
    )
    p.add_argument("--daemon", action="store_true", help="detach and keep running; prints the URL, pid and log path")
    p.add_argument(
        "--status", action="store_true", help="report whether a dashboard runs on --port (exit 0 only when running)"
    )
    p.add_argument("--stop", action="store_true", help="stop the dashboard on --port and wait for the port to be free")
    p.add_argument(
        "--demo", action="store_true", help="serve a live demo board from simulated stores of all ten harnesses"
    )
    p.add_argument(
        "--no-events",
        action="store_true",
        help="accept no lifecycle events; a fixed-interval scan keeps the board warm",
    )
    p.add_argument("--no-irreversible", action="store_true", help="disable irreversible-command reports for this run")
    p.add_argument("--no-notify", action="store_true", help="raise no desktop notifications for this run")
    p.add_argument(
        "--open", dest="open_browser", action="store_true", help="open the dashboard in a browser once it serves"
    )
    p.add_argument(
        "--forget",
        action="store_true",
        help="delete the local history, the session ends and discard records, clear reading permission, and exit",
    )
    observer = p.add_mutually_exclusive_group()
    observer.add_argument(
        "--observer-model",
        dest="observer_model",
        action="store_const",
        const=True,
        default=None,
        help="offer optional Codex goal summaries",
    )
    observer.add_argument(
        "--no-observer-model",
        dest="observer_model",
        action="store_const",
        const=False,
        help="refuse every model call for this run (readings, summaries, unasked checks)",
    )
    p.add_argument(
        "--unasked-readings",
        action="store_true",
        help="check annotated sessions for departures on observed state changes, unasked (off by default)",
    )
    p.add_argument(
        "--interaction-origin-session",
        type=_origin_session,
        default=None,
        metavar="HARNESS:SID",
        help="the one session whose read-only terminal prototype may register (with the next flag)",
    )
    p.add_argument(
        "--interaction-origin-registration-file",
        default=None,
        metavar="FILE",
        help="the private file holding the terminal prototype's registration capability",
    )
    p.add_argument("--no-spacedock", action="store_true", help="do not read Spacedock workflow definitions")
    p.add_argument("--no-tripwires", action="store_true", help="disable workflow stage conditions and their store")
    p.add_argument("--no-usage", action="store_true", help="fetch no vendor quota and ignore pushed quota this run")
    p.add_argument("--no-git", action="store_true", help="run no end-of-session git probe this run")
    p.add_argument("--no-dismiss", action="store_true", help="neither read nor write the sessions marked handled")
    p.add_argument("--no-annotations", action="store_true", help="neither read nor write the goals you typed")
    p.add_argument("--no-ask", action="store_true", help="let no session ask you a question this run")
    p.add_argument("--no-focus", action="store_true", help="never raise a session's terminal this run")
    p.add_argument("--no-history", action="store_true", help="keep and read back no local history this run")
    p.add_argument("--no-reach", action="store_true", help="post no off-machine reach nudge this run")
    p.add_argument(
        "--reach-url",
        type=_web_url("--reach-url"),
        default=None,
        metavar="URL",
        help="webhook for reach nudges (over CARGENTO_REACH_URL and ~/.cargento/reach_url)",
    )
    p.add_argument("--no-quiet-hours", action="store_true", help="notify whatever the local time this run")
    p.add_argument(
        "--quiet-hours",
        type=_quiet_hours,
        default=None,
        metavar="HH:MM-HH:MM",
        help="hold non-urgent notifications in this local window (over CARGENTO_QUIET_HOURS)",
    )
    p.add_argument(
        "--history-days",
        type=_positive_days,
        default=DEFAULT_HISTORY_DAYS,
        metavar="N",
        help="keep local history this many days (default 14)",
    )
    p.add_argument(
        "--history-max-bytes",
        type=_positive_bytes,
        default=DEFAULT_HISTORY_MAX_BYTES,
        metavar="N",
        help="size cap (and read cap) of the local history store (default 1048576)",
    )
    p.add_argument(
        "--otlp-port",
        type=_otlp_port,
        default=DEFAULT_OTLP_PORT,
        metavar="N",
        help="loopback port of the OpenTelemetry receiver (default 4318; 0 turns it off)",
    )
    p.add_argument(
        "--otlp-endpoint",
        type=_web_url("--otlp-endpoint"),
        default=None,
        metavar="URL",
        help="push the board's metrics to this OTLP/HTTP collector",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="tracebacks in --diagnose")
    p.add_argument("--version", action="version", version=_version())
    return p


def _version() -> str:
    from cargento import __version__

    return f"cargento {__version__}"


def parse_args(argv: Sequence[str] | None = None) -> Options:
    ns = build_parser().parse_args(argv)
    modes = [n for n in ("diagnose", "daemon", "status", "stop", "forget") if getattr(ns, n)]
    if ns.json and not ns.diagnose:
        modes.append("json")
    if len(modes) > 1:
        raise UsageError("choose one of " + ", ".join("--" + m for m in modes))
    if ns.demo and (ns.status or ns.stop or ns.diagnose or ns.forget):
        raise UsageError("--demo serves a dashboard; it does not combine with --status, --stop, --forget or --diagnose")
    if ns.unasked_readings and ns.observer_model is False:
        raise UsageError("--unasked-readings asks a model; --no-observer-model refuses every model call")
    if (ns.interaction_origin_session is None) != (ns.interaction_origin_registration_file is None):
        raise UsageError(
            "the terminal prototype needs both --interaction-origin-session and --interaction-origin-registration-file"
        )
    if ns.quiet_hours is not None and ns.no_quiet_hours:
        raise UsageError("--quiet-hours and --no-quiet-hours contradict each other")
    if ns.reach_url is not None and ns.no_reach:
        raise UsageError("--reach-url and --no-reach contradict each other")
    return Options(**vars(ns))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hooks"]:
        from cargento.events.hooks_cmd import main as hooks_main

        return hooks_main(args[1:])
    if args[:1] == ["telemetry"]:
        from cargento.telemetry.setup_cmd import main as telemetry_main

        return telemetry_main(args[1:])
    from cargento import codecache, starthold

    if argv is None:  # the console script: attrs' generated methods come compiled from the cache
        codecache.install_from(os.environ)
    with starthold.held_for_start():  # until the first board is out (the server releases it then)
        code, printed = _run(args)
        if argv is None:  # the console script: the process ends when this returns
            codecache.keep()  # what this run compiled, for the next start
            starthold.ending()  # before the hold ends, so the collector never walks the start
    if argv is None and printed:
        starthold.exit_at_once(code)
    return code


def _run(args: list[str]) -> tuple[int, bool]:
    """The exit code, and whether the run was one that prints its answer and is done
    (``--json``, ``--diagnose``), which may end without the interpreter's teardown."""
    try:
        options = parse_args(args)
    except UsageError as exc:
        print(f"cargento: {exc} (see cargento --help)", file=sys.stderr)
        return 2, False
    printed = options.diagnose or options.json
    if options.demo or options.diagnose or options.forget or options.status or options.stop:
        from cargento import codecache

        # Only a run that builds boards for the user keeps what it compiled: the demo writes
        # nothing of the user's, --diagnose nothing at all, and the one-shot commands build none.
        codecache.read_only()
    try:
        if options.diagnose:
            return _diagnose(options), printed
        if options.json:
            return _snapshot(options), printed
        if options.status or options.stop or options.forget:
            return _serve(options), printed
        problem = _configured_quiet_hours_problem(options)
        if problem is not None:
            print(f"cargento: {problem}", file=sys.stderr)
            return 2, printed
        return _serve(options), printed
    except KeyboardInterrupt:
        return 130, printed
    except BrokenPipeError:
        return 1, printed


def _configured_quiet_hours_problem(options: Options) -> str | None:
    """A malformed ``CARGENTO_QUIET_HOURS`` or ``~/.cargento/quiet_hours`` refuses the run with
    one line, as a malformed ``--quiet-hours`` does (which the parser already refused)."""
    from cargento.quiethours import QuietHoursError, resolve_window

    try:
        resolve_window(options.quiet_hours, os.environ, off=options.no_quiet_hours)
    except QuietHoursError as exc:
        return str(exc)
    return None


def _builder(options: Options) -> tuple[object, object]:
    from cargento.board import BoardBuilder
    from cargento.plugins import load_registry

    env = dict(os.environ)
    registry = load_registry(env=env)
    as_of = options.as_of
    clock: Callable[[], datetime] | None = None
    if as_of is not None:

        def clock() -> datetime:
            return as_of

    from cargento.processes import LocalProcesses

    # A replay's moment is not now: its process table answers pids but is not listed.
    processes = LocalProcesses(listing=as_of is None and not options.demo)
    builder = BoardBuilder(registry, env=env, window_hours=options.window_hours, clock=clock, processes=processes)
    return registry, builder


def _diagnose(options: Options) -> int:
    from cargento.board import BoardBuilder
    from cargento.diagnose import diagnose, render_json, render_text
    from cargento.plugins import Registry

    registry, builder = _builder(options)
    assert isinstance(registry, Registry) and isinstance(builder, BoardBuilder)
    report = diagnose(registry, builder, options=options)
    if options.json:
        sys.stdout.buffer.write(render_json(report) + b"\n")
    else:
        print(render_text(report, verbose=options.verbose))
    return 0 if report.ok and report.stores_ok else 1


def _snapshot(options: Options) -> int:
    from cargento.board import BoardBuilder, board_json

    _, builder = _builder(options)
    assert isinstance(builder, BoardBuilder)
    board = builder.build(all_sessions=options.all, as_of=options.as_of is not None)
    sys.stdout.buffer.write(board_json(board) + b"\n")
    return 0


def serve_implementation() -> Callable[[Options], int] | None:
    """The ``run(options)`` of the first loadable :data:`SERVE_GROUP` entry point (by name),
    or ``None`` when no dashboard is installed."""
    from cargento.entrypoints import entry_points

    for ep in sorted(entry_points(SERVE_GROUP), key=lambda e: e.name):
        try:
            found = ep.load()
        except ImportError:
            continue
        if callable(found):
            run: Callable[[Options], int] = found
            return run
    return None


def _serve(options: Options) -> int:
    run = serve_implementation()
    if run is None:
        print(
            "cargento: the dashboard needs cargento-web, which is not installed (pip install cargento)",
            file=sys.stderr,
        )
        return 2
    return run(options)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
