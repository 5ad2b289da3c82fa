"""``--status``, ``--stop`` and ``--daemon``: one running dashboard per port, told apart from
anything else that happens to hold the port.

Exit codes: 0 success (``--status``: running); 1 not running / failed; 3 the port belongs to
another process (nothing was touched).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from cargento.cli import Options
from cargento.processes import pid_alive
from cargento.statedir import log_file, read_state, state_dir, state_file
from cargento.timestamps import iso

from cargento_web.probe import port_free, post_shutdown, probe
from cargento_web.server import busy_message
from cargento_web.statefile import remove_state

__all__ = ["EXIT_FOREIGN", "daemon", "options_argv", "status", "stop"]

EXIT_FOREIGN = 3
#: How long ``--stop`` waits for the port to come free, and ``--daemon`` for the child to serve.
STOP_WAIT_S = 15.0
START_WAIT_S = 20.0


def status(port: int, env: Mapping[str, str] | None = None) -> int:
    """Report running (pid, start time), not running, or another process on the port."""
    who = probe(port)
    if who.kind == "cargento" and who.health is not None:
        h = who.health
        print(f"running: Cargento on port {port}, pid {h.get('pid')}, started {h.get('started_at')}, {h.get('url')}")
        return 0
    if who.kind == "other":
        print(f"port {port} belongs to another process (not a Cargento dashboard); nothing was changed")
        return EXIT_FOREIGN
    state = read_state(port, env)
    if state is not None:
        print(
            f"not running on port {port} (a stale state file from pid {state.get('pid')} remains at "
            f"{state_file(port, env)}; `cargento --port {port} --stop` clears it)"
        )
    else:
        print(f"not running on port {port}")
    return 1


def stop(port: int, env: Mapping[str, str] | None = None) -> int:
    """Stop the dashboard on *port* over ``/api/shutdown`` and wait for the port to be free."""
    who = probe(port)
    if who.kind == "other":
        print(
            f"cargento: port {port} belongs to another process, not a Cargento dashboard; nothing was stopped or removed",
            file=sys.stderr,
        )
        return EXIT_FOREIGN
    if who.kind == "free":
        if remove_state(port, env):
            print(f"not running on port {port}; cleared a stale state file")
        else:
            print(f"not running on port {port}")
        return 0
    pid = who.health.get("pid") if who.health else None
    if not post_shutdown(port):
        print(f"cargento: the dashboard on port {port} (pid {pid}) refused to shut down", file=sys.stderr)
        return 1
    deadline = time.monotonic() + STOP_WAIT_S
    # Done only when the port is free and the process itself has exited: a server closes its
    # socket before its shutdown finishes, so a free port alone says too little.
    while time.monotonic() < deadline:
        if probe(port, timeout=0.5).kind == "free" and port_free("127.0.0.1", port) and not pid_alive(pid):
            break
        time.sleep(0.05)
    else:
        print(
            f"cargento: the dashboard on port {port} (pid {pid}) did not stop within {STOP_WAIT_S:.0f} s",
            file=sys.stderr,
        )
        return 1
    state = read_state(port, env)
    if state is not None and (state.get("pid") == pid or not pid_alive(state.get("pid"))):
        remove_state(port, env)
    print(f"stopped Cargento on port {port} (pid {pid}); the port is free")
    return 0


def options_argv(options: Options) -> list[str]:
    """The command line that serves *options* in the foreground (``--daemon`` dropped)."""
    argv = ["--port", str(options.port), "--host", options.host, "--window-hours", repr(options.window_hours)]
    if options.all:
        argv.append("--all")
    if options.as_of is not None:
        argv += ["--as-of", iso(options.as_of) or ""]
    for flag, on in (
        ("--demo", options.demo),
        ("--no-events", options.no_events),
        ("--no-irreversible", options.no_irreversible),
        ("--no-notify", options.no_notify),
        ("--verbose", options.verbose),
    ):
        if on:
            argv.append(flag)
    return argv


def _last_line(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 8192))
            tail = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else None


def daemon(options: Options, env: Mapping[str, str] | None = None) -> int:
    """Start a detached dashboard, wait until it serves, print its URL, pid and log path."""
    if not port_free(options.host, options.port):
        print(busy_message(options.host, options.port), file=sys.stderr)
        return 1
    state_dir(env).mkdir(parents=True, exist_ok=True)
    log_path = log_file(options.port, env)
    argv = [sys.executable, "-m", "cargento_web", "--detached-log", str(log_path), *options_argv(options)]
    kwargs: dict[str, object] = {}
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        kwargs["creationflags"] = 0x00000008 | 0x00000200 | 0x08000000  # DETACHED | NEW_GROUP | NO_WINDOW
    else:
        kwargs["start_new_session"] = True
    with open(log_path, "ab") as log_fh:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log_fh,
            stderr=subprocess.STDOUT,
            close_fds=True,
            env=dict(os.environ if env is None else env),
            **kwargs,  # type: ignore[call-overload]
        )
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        code = child.poll()
        if code is not None:
            why = _last_line(log_path) or f"the server exited with code {code}"
            print(
                why if why.startswith("cargento:") else f"cargento: the dashboard did not start: {why}", file=sys.stderr
            )
            return code or 1
        state = read_state(options.port, env)
        if state is not None and state.get("pid") == child.pid:
            who = probe(options.port, timeout=0.5)
            if who.kind == "cargento" and who.health and who.health.get("pid") == child.pid:
                print(f"Cargento dashboard: {state.get('url')}")
                print(f"pid: {child.pid}")
                print(f"log: {log_path}")
                return 0
        time.sleep(0.1)
    print(
        f"cargento: the dashboard (pid {child.pid}) did not answer within {START_WAIT_S:.0f} s; see {log_path}",
        file=sys.stderr,
    )
    return 1
