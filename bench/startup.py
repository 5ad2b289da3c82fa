"""Whole-process figures for ``nox -s bench``: what a person waits for, from process start.

- ``first_board_json_<n>_s``: ``cargento --json`` over a synthetic store of *n* active
  sessions (ten harnesses) plus 5,000 old one-record Claude files, start to exit;
- ``first_board_server_<n>_s``: a fresh ``cargento`` server, from process start until
  ``/api/data`` first answers 200;
- ``forwarder_ms`` (dashboard answering) and ``forwarder_no_dashboard_ms``: one
  ``cargento-event-hook`` process, start to exit;
- ``idle_cpu_percent``: the server's CPU over a quiet window with one stream client open and
  nothing changing, as a share of one core;
- ``forwarder_installed_*``: the same forwarder installed from wheels (non-editable) into a
  fresh virtual environment, as ``pip install cargento`` leaves it, both as its console script
  and as ``python -m cargento.forwarders.event_hook`` (the form ``cargento hooks install``
  writes); the development checkout's editable installs add a ``.pth`` file per package that
  every interpreter start processes;
- ``server_peak_rss_<n>_mb``: the server's peak resident memory (``VmHWM``) at *n* active
  sessions plus the old files, with one stream open, after a window of appends;
- ``soak``: the ``--demo`` server's resident memory sampled over a window with one stream open
  and the page's polling, its growth from the first minute to the end and its slope over the
  last half of the window (the leak check: ``levels_off``).

- ``memory_steps``: RSS after each step of a server's start in one process (the interpreter,
  core, the plugins, the web stack, the features, the first board, its document).

``python bench/startup.py soak --minutes 35 --out soak.json`` runs a soak alone, printing the
samples as it goes (``memory``, with ``--seconds`` of appends, and ``steps`` likewise).

Every process runs with Python's bytecode cache, as an installed Cargento does
(``PYTHONDONTWRITEBYTECODE`` is removed from its environment).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import stores

REPO = Path(__file__).resolve().parent.parent

BIN = Path(sys.executable).parent


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def _env(home: Path, state: Path, code: Path | None = None) -> dict[str, str]:
    """The environment of a measured process: a synthetic *home*, Cargento's state in *state*,
    the bytecode cache on; with *code*, that checkout's sources ahead of the installed ones
    (the same entry points, another version of the modules they name)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("CLAUDE_", "CODEX_"))
    }
    env.update(
        {
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "CARGENTO_HOME": str(state),
        }
    )
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join(str(src) for src in _sources(code))
    return env


def _sources(code: Path) -> list[Path]:
    """Every ``src`` folder of a checkout at *code*: core, the web app, the harness plugins."""
    return sorted(code.glob("cargento-*/src")) + sorted(code.glob("docs/plugins/*/src"))


def _old_files(home: Path, count: int) -> None:
    """*count* one-record Claude transcripts, days old: history a scan walks past."""
    folder = home / ".claude" / "projects" / "-old-history"
    folder.mkdir(parents=True, exist_ok=True)
    old = (datetime.now(UTC) - timedelta(days=30)).timestamp()
    for i in range(count):
        path = folder / f"{i:08x}-0000-4000-8000-000000000000.jsonl"
        path.write_text('{"type":"user","message":{"role":"user","content":"old"}}\n')
        os.utime(path, (old, old))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _answers(port: int) -> bool:
    """One ``GET /api/data``: True on a 200. A plain ``http.client`` connection, because the
    poll is inside the measured interval: ``httpx.get`` makes a client (and its TLS context)
    per call, about 22 ms here, which delayed every attempt and the final one too."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/data")
        response = connection.getresponse()
        response.read()
        return response.status == 200
    finally:
        connection.close()


def _serve(env: dict[str, str], port: int) -> tuple[subprocess.Popen[bytes], float]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "cargento"), "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if _answers(port):
                return proc, time.perf_counter() - started
        except OSError:  # not listening yet
            pass
        time.sleep(0.001)
    proc.kill()
    raise RuntimeError("the server never answered /api/data")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def figures(per_harness: int, *, runs: int, old: int = 5000, idle_s: float = 60.0) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="cargento-startup-"))
    try:
        home = root / "home"
        stores.populate(home, per_harness, datetime.now(UTC))
        _old_files(home, old)
        env = _env(home, root / "state")
        n = per_harness * 10
        subprocess.run([str(BIN / "cargento"), "--json"], env=env, capture_output=True, check=True)  # warm the caches
        json_s = []
        for _ in range(runs):
            started = time.perf_counter()
            out = subprocess.run([str(BIN / "cargento"), "--json"], env=env, capture_output=True, check=True)
            json_s.append(time.perf_counter() - started)
        sessions = len(json.loads(out.stdout)["sessions"])
        server_s = _server_starts(env, runs)
        result: dict[str, Any] = {
            "sessions": sessions,
            f"first_board_json_{n}_s": _summary(json_s),
            f"first_board_server_{n}_s": _summary(server_s),
        }
        if idle_s > 0:
            result["idle"] = _idle(env, idle_s)
        # A long-used installation: the history store reaches its cap after about two hours.
        result["history_observations"] = _history_at_cap(root / "state", datetime.now(UTC))
        result[f"first_board_server_{n}_history_at_cap_s"] = _summary(_server_starts(env, runs))
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _server_starts(env: dict[str, str], runs: int) -> list[float]:
    """Seconds from process start to the first ``/api/data`` answer, of *runs* fresh servers."""
    took = []
    for _ in range(runs):
        proc, seconds = _serve(env, _free_port())
        took.append(seconds)
        _stop(proc)
    return took


def _history_at_cap(state: Path, now: datetime) -> int:
    """Fill Cargento's history store in *state* to its byte cap as days of use leave it (state
    changes, turns, waits and tasks of 400 sessions over the last twelve days, a short detail
    on some); returns how many observations it holds."""
    from cargento_web.history.store import DEFAULT_MAX_BYTES, KINDS, HistoryStore, Observation

    store = HistoryStore(state, clock=lambda: now)
    store.load()
    details = (None, None, "first seen by this server", "permission", "Run the test suite", "subagent explorer")
    states = ("working", "needs_input", "idle")
    i = 0
    while store.size < DEFAULT_MAX_BYTES * 0.97:
        batch = []
        for _ in range(500):
            kind = KINDS[i % len(KINDS)]
            session = i % 400  # its harness and project are its own
            batch.append(
                Observation(
                    harness=stores.HARNESSES[session % len(stores.HARNESSES)],
                    session_id=f"{session:08x}-0000-4000-8000-000000000000",
                    kind=kind,
                    at=now - timedelta(days=12) + timedelta(seconds=i * 60),
                    source="store" if i % 3 else "event:Stop",
                    project=f"org{session % 9}/repo{session % 13}",
                    state=states[i % 3] if kind == "state" else None,
                    previous=states[(i + 1) % 3] if kind == "state" else None,
                    detail=details[i % len(details)],
                )
            )
            i += 1
        store.record(batch)
    store.close()
    return len(store)


def _json_once(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([str(BIN / "cargento"), "--json"], env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def compare(per_harness: int, *, runs: int, against: Path, old: int = 5000) -> dict[str, Any]:
    """The first-board figures of this checkout and of the checkout at *against* (its sources
    put ahead of the installed ones by ``PYTHONPATH``), interleaved run by run so both see the
    same load: ``{"json": {"before": ..., "now": ...}, "server": {...}}``."""
    root = Path(tempfile.mkdtemp(prefix="cargento-startup-ab-"))
    try:
        home = root / "home"
        stores.populate(home, per_harness, datetime.now(UTC))
        _old_files(home, old)
        envs = {"before": _env(home, root / "state", against), "now": _env(home, root / "state")}
        for env in envs.values():
            _json_once(env)  # warm the caches (and write the other checkout's bytecode)
        json_s: dict[str, list[float]] = {name: [] for name in envs}
        server_s: dict[str, list[float]] = {name: [] for name in envs}
        for i in range(runs):
            order = list(envs) if i % 2 == 0 else list(reversed(envs))
            for name in order:
                json_s[name].append(_json_once(envs[name]))
            for name in order:
                proc, took = _serve(envs[name], _free_port())
                server_s[name].append(took)
                _stop(proc)
        # A long-used installation: the history store at its cap, read back by both at start.
        observations = _history_at_cap(root / "state", datetime.now(UTC))
        capped_s: dict[str, list[float]] = {name: [] for name in envs}
        for i in range(runs):
            for name in list(envs) if i % 2 == 0 else list(reversed(envs)):
                proc, took = _serve(envs[name], _free_port())
                capped_s[name].append(took)
                _stop(proc)
        n = per_harness * 10
        return {
            "sessions": n,
            "old_files": old,
            "against": str(against),
            "load_average": os.getloadavg(),
            f"first_board_json_{n}_s": {name: _summary(v) for name, v in json_s.items()},
            f"first_board_server_{n}_s": {name: _summary(v) for name, v in server_s.items()},
            "history_observations": observations,
            f"first_board_server_{n}_history_at_cap_s": {name: _summary(v) for name, v in capped_s.items()},
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _idle(env: dict[str, str], seconds: float) -> dict[str, Any]:
    import psutil

    port = _free_port()
    proc, _ = _serve(env, port)
    stop = threading.Event()

    def listen() -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/api/stream", timeout=None) as response:
            for _ in response.iter_lines():
                if stop.is_set():
                    return

    threading.Thread(target=listen, daemon=True).start()
    try:
        time.sleep(5)  # the first build, the watcher and the stream settle
        watched = psutil.Process(proc.pid)
        before = watched.cpu_times()
        time.sleep(seconds)
        after = watched.cpu_times()
        used = (after.user - before.user) + (after.system - before.system)
        return {"window_s": seconds, "cpu_s": used, "idle_cpu_percent": 100.0 * used / seconds}
    finally:
        stop.set()
        _stop(proc)


def forwarder(runs: int) -> dict[str, Any]:
    """One ``cargento-event-hook`` process, start to exit, with no dashboard and with one."""
    root = Path(tempfile.mkdtemp(prefix="cargento-forwarder-"))
    try:
        home = root / "home"
        home.mkdir()
        env = _env(home, root / "state")
        payload = json.dumps(
            {"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash", "cwd": "/w"}
        ).encode()
        hook = str(BIN / "cargento-event-hook")

        def once(port: int) -> float:
            started = time.perf_counter()
            subprocess.run([hook, "claude", str(port)], input=payload, env=env, check=True, capture_output=True)
            return (time.perf_counter() - started) * 1000.0

        port = _free_port()
        once(port)
        none = [once(port) for _ in range(runs)]
        proc, _ = _serve(env, port)
        try:
            once(port)
            answering = [once(port) for _ in range(runs)]
        finally:
            _stop(proc)
        return {"forwarder_no_dashboard_ms": _summary(none), "forwarder_ms": _summary(answering)}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _hook_once(command: list[str], payload: bytes, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=payload, env=env, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000.0


def _installed_venv(root: Path) -> Path:
    """A fresh virtual environment holding cargento-core installed from its wheel (no
    editable ``.pth``), the only distribution a forwarder imports (a test holds it to that)."""
    wheels = root / "wheels"
    subprocess.run(
        [str(BIN / "pip"), "wheel", "-q", "--no-deps", str(REPO / "cargento-core"), "-w", str(wheels)],
        check=True,
        capture_output=True,
    )
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    subprocess.run(
        [str(BIN / "pip"), "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps", "--no-index"]
        + [str(w) for w in wheels.glob("*.whl")],
        check=True,
        capture_output=True,
    )
    return venv / "bin"


def forwarder_installed(runs: int) -> dict[str, Any]:
    """The forwarder as a user's installation runs it: from wheels, no dashboard and one."""
    root = Path(tempfile.mkdtemp(prefix="cargento-forwarder-installed-"))
    try:
        bindir = _installed_venv(root)
        home = root / "home"
        home.mkdir()
        env = _env(home, root / "state")
        payload = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s1", "tool_name": "Bash"}).encode()
        port = _free_port()
        forms = {
            "script": [str(bindir / "cargento-event-hook"), "claude", str(port)],
            "module": [str(bindir / "python"), "-m", "cargento.forwarders.event_hook", "claude", str(port)],
            "bare_interpreter": [str(bindir / "python"), "-c", "pass"],
        }
        out: dict[str, Any] = {}
        for name, command in forms.items():
            _hook_once(command, payload, env)
            out[f"forwarder_installed_{name}_no_dashboard_ms"] = _summary(
                [_hook_once(command, payload, env) for _ in range(runs)]
            )
        proc, _ = _serve(env, port)
        try:
            for name in ("script", "module"):
                _hook_once(forms[name], payload, env)
                out[f"forwarder_installed_{name}_ms"] = _summary(
                    [_hook_once(forms[name], payload, env) for _ in range(runs)]
                )
        finally:
            _stop(proc)
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _peak_rss_mb(pid: int) -> float | None:
    """The process's peak resident set (``VmHWM``), in MB; ``None`` off Linux."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def _rss_mb(pid: int) -> float:
    import psutil

    return float(psutil.Process(pid).memory_info().rss) / (1024.0 * 1024.0)


class _Listener:
    """One page's stream, read in a thread until stopped."""

    def __init__(self, url: str) -> None:
        self.stop = threading.Event()
        self.events = 0
        self._thread = threading.Thread(target=self._run, args=(url,), daemon=True)
        self._thread.start()

    def _run(self, url: str) -> None:
        with httpx.stream("GET", url, timeout=None) as response:
            for line in response.iter_lines():
                if line.startswith("event: board"):
                    self.events += 1
                if self.stop.is_set():
                    return


def memory(per_harness: int, *, appends_s: float, old: int = 5000, code: Path | None = None) -> dict[str, Any]:
    """Peak RSS of a server at ``per_harness * 10`` active sessions after *appends_s* of
    appends (one store record every 50 ms, round the sessions) with one stream open; with
    *code*, that checkout's sources run (see :func:`_env`)."""
    root = Path(tempfile.mkdtemp(prefix="cargento-memory-"))
    try:
        home = root / "home"
        lives = stores.populate(home, per_harness, datetime.now(UTC))
        _old_files(home, old)
        env = _env(home, root / "state", code)
        port = _free_port()
        proc, _ = _serve(env, port)
        listener = _Listener(f"http://127.0.0.1:{port}/api/stream")
        try:
            time.sleep(2.0)
            first = _rss_mb(proc.pid)
            deadline = time.monotonic() + appends_s
            i = 0
            while time.monotonic() < deadline:
                lives[(i * 7) % len(lives)].append(datetime.now(UTC))
                i += 1
                time.sleep(0.05)
            time.sleep(1.0)
            httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=30)
            n = per_harness * 10
            return {
                "sessions": n,
                "load_average": os.getloadavg(),
                "appends": i,
                "appends_s": appends_s,
                "board_events": listener.events,
                "rss_after_start_mb": first,
                "rss_end_mb": _rss_mb(proc.pid),
                f"server_peak_rss_{n}_mb": _peak_rss_mb(proc.pid),
            }
        finally:
            listener.stop.set()
            _stop(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _slope_mb_per_min(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of *points* ``(seconds, MB)``, in MB a minute."""
    if len(points) < 3:
        return None
    mean_t = statistics.fmean(t for t, _ in points)
    mean_m = statistics.fmean(m for _, m in points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    if spread == 0:
        return None
    return 60.0 * sum((t - mean_t) * (m - mean_m) for t, m in points) / spread


def soak_figures(samples: list[tuple[float, float]], *, warm_s: float = 60.0) -> dict[str, Any]:
    """What a soak's ``(seconds from start, RSS MB)`` samples say: the growth from the end of
    the first *warm_s* to the end (``growth_after_warm_mb``), the slope over the whole window
    after the warm-up and over its last half (``slope_last_half_mb_per_min``: near zero when
    the RSS has levelled off), and that last slope as MB an hour (``last_half_mb_per_hour``,
    against the issue's 5 MB over an hour). A single RSS sample moves with each build's
    garbage, so the growth is also given between the medians of the first and last three
    samples after the warm-up (``growth_after_warm_median3_mb``)."""
    after = [(t, m) for t, m in samples if t >= warm_s] or samples[-1:]
    half = after[0][0] + (after[-1][0] - after[0][0]) / 2.0
    last_half = [(t, m) for t, m in after if t >= half]
    slope_all = _slope_mb_per_min(after)
    slope_half = _slope_mb_per_min(last_half)
    head = statistics.median(m for _, m in after[:3])
    tail = statistics.median(m for _, m in after[-3:])
    return {
        "rss_after_warm_mb": after[0][1],
        "rss_end_mb": samples[-1][1],
        "rss_max_mb": max(m for _, m in samples),
        "growth_after_warm_mb": samples[-1][1] - after[0][1],
        "growth_after_warm_median3_mb": tail - head,
        "slope_after_warm_mb_per_min": slope_all,
        "slope_last_half_mb_per_min": slope_half,
        "last_half_mb_per_hour": None if slope_half is None else 60.0 * slope_half,
        "levels_off": None if slope_half is None else 60.0 * slope_half <= 5.0,
    }


_STEPS = r"""
import gc, json, sys

def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0

steps = [("interpreter", rss())]
from cargento_web.arenas import tune_malloc
tune_malloc()  # as the server does
import cargento.cli, cargento.board, cargento.plugins, cargento.processes
steps.append(("core board and CLI", rss()))
from cargento.plugins import load_registry
options = cargento.cli.parse_args(["--port", sys.argv[1]])
from cargento_web.environment import serving_environment
served = serving_environment(options)
registry = load_registry(env=served.env)
steps.append(("ten harness plugins", rss()))
import cargento_web.quietserver, starlette.applications, cargento_web.server, cargento_web.app  # uvicorn as the server imports it
steps.append(("web server", rss()))
from cargento_web.settings import Settings
from cargento_web.server import build_app
app, hub = build_app(options, served, Settings(host="127.0.0.1", port=int(sys.argv[1])))
steps.append(("operator features", rss()))
live = app.state.live
board = live._build_sync(live.feed(False))  # the server's build: the hub's and the features' turns too
steps.append(("first board", rss()))
from cargento_web.app import document
body = document(board, live.extensions.document() if live.extensions.items else None)
steps.append(("its /api/data document", rss()))
print(json.dumps({"steps": steps, "document_bytes": len(body), "sessions": len(board.sessions), "modules": sorted(sys.modules)}))
"""

_FLOOR = r"""
import importlib, json, sys

def rss():
    with open("/proc/self/status") as fh:
        return {k: int(v.split()[0]) / 1024.0 for k, v in (l.split(":", 1) for l in fh) if k in ("VmRSS", "RssAnon", "RssFile")}

names = json.loads(sys.stdin.read())
groups = json.loads(sys.argv[1])
out = {"interpreter": rss()}
if "uvicorn" in names and "uvicorn.main" not in names:
    # The server imported uvicorn's modules without its package's __init__ (cargento_web.uvicornparts).
    import importlib.util
    spec = importlib.util.find_spec("uvicorn")
    sys.modules["uvicorn"] = importlib.util.module_from_spec(spec)
for label, prefixes in groups:
    for name in names:
        if name.split(".")[0] in prefixes or (not prefixes and not name.startswith("cargento")):
            try:
                importlib.import_module(name)
            except Exception:  # a module only its own process has (__mp_main__, cython_runtime)
                pass
    out[label] = rss()
for name in names:
    if name.startswith("cargento"):
        try:
            importlib.import_module(name)
        except Exception:
            pass
out["then Cargento's own modules (code, no board)"] = rss()
print(json.dumps(out))
"""

#: The modules not ours that a server loads, imported group after group in a fresh process.
_FLOOR_GROUPS: list[tuple[str, list[str]]] = [
    ("asyncio (and ssl, which it imports)", ["asyncio", "ssl", "_ssl"]),
    (
        "uvicorn's package (click, watchfiles, multiprocessing for its CLI and reloader)",
        ["click", "watchfiles", "multiprocessing"],
    ),
    (
        "uvicorn, starlette, anyio, httptools",
        ["uvicorn", "starlette", "anyio", "httptools", "h11", "python_multipart", "sniffio", "idna"],
    ),
    (
        "attrs, cattrs, pluggy, psutil, orjson",
        ["attr", "attrs", "cattrs", "pluggy", "psutil", "orjson", "typing_extensions"],
    ),
    ("the rest of the standard library it loads", []),
]


def import_floor(modules: list[str]) -> dict[str, Any]:
    """RSS of a fresh process importing every module in *modules* that is not Cargento's (what a
    server loads of the standard library and its dependencies), group by group (each counts
    what it imports first): the floor no work on Cargento's own code can go under while it runs
    on this stack; then Cargento's own modules on top, without building anything."""
    theirs = [m for m in modules if not m.startswith(("cargento", "__main__"))]
    out = subprocess.run(
        [sys.executable, "-c", _FLOOR, json.dumps(_FLOOR_GROUPS)],
        input=json.dumps([m for m in modules if m != "__main__"]),
        capture_output=True,
        check=True,
        text=True,
    )
    found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return {"modules_not_ours": len(theirs), "modules_ours": len(modules) - len(theirs), "rss_mb_after": found}


def memory_steps(per_harness: int, *, old: int = 5000) -> dict[str, Any]:
    """RSS after each step of a server's start, in one process, at ``per_harness * 10`` active
    sessions plus *old* old Claude files: the interpreter, core, the plugins, the web stack,
    the operator features, the first board, its ``/api/data`` document."""
    root = Path(tempfile.mkdtemp(prefix="cargento-steps-"))
    try:
        home = root / "home"
        stores.populate(home, per_harness, datetime.now(UTC))
        _old_files(home, old)
        env = _env(home, root / "state")
        out = subprocess.run(
            [sys.executable, "-c", _STEPS, str(_free_port())], env=env, capture_output=True, check=True, text=True
        )
        found: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
        found["import_floor"] = import_floor(found.pop("modules"))
        return found
    finally:
        shutil.rmtree(root, ignore_errors=True)


def soak(seconds: float, *, sample_s: float = 10.0, warm_s: float = 60.0, progress: bool = False) -> dict[str, Any]:
    """The leak check: the ``--demo`` server (its scripted sessions keep appending and firing
    events) with one stream open and ``/api/data`` fetched on every revision as the page does,
    its RSS sampled every *sample_s*. Growth is from the end of the first *warm_s* (caches fill
    while the first boards are built) to the end of the window."""
    root = Path(tempfile.mkdtemp(prefix="cargento-soak-"))
    try:
        home = root / "home"
        home.mkdir()
        env = _env(home, root / "state")
        port = _free_port()
        started = time.perf_counter()
        proc = subprocess.Popen(
            # Its own telemetry port: a receiver that cannot bind (another dashboard on 4318)
            # would leave the demo's telemetry surfaces out of the soak.
            [str(BIN / "cargento"), "--demo", "--port", str(port), "--otlp-port", str(_free_port())],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
            listener = _Listener(f"http://127.0.0.1:{port}/api/stream")
            samples: list[tuple[float, float]] = []
            seen = 0
            try:
                end = time.monotonic() + seconds
                next_sample = time.monotonic()
                while time.monotonic() < end:
                    if listener.events != seen:  # the page refetches on each revision
                        seen = listener.events
                        httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=30)
                    if time.monotonic() >= next_sample:
                        samples.append((time.perf_counter() - started, _rss_mb(proc.pid)))
                        next_sample += sample_s
                        if progress:
                            print(f"{samples[-1][0]:8.1f} s  {samples[-1][1]:6.2f} MB", flush=True)
                    time.sleep(0.2)
                samples.append((time.perf_counter() - started, _rss_mb(proc.pid)))
            finally:
                listener.stop.set()
            return {
                "window_s": seconds,
                "revisions": listener.events,
                "rss_first_mb": samples[0][1],
                **soak_figures(samples, warm_s=warm_s),
                "peak_rss_mb": _peak_rss_mb(proc.pid),
                "samples": [[round(at, 1), round(rss, 2)] for at, rss in samples],
            }
        finally:
            _stop(proc)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """``python bench/startup.py [first-board] [--per 16 64] [--runs 9] [--against CHECKOUT]``:
    the first board's figures alone (no idle window), or this checkout against another,
    interleaved; ``python bench/startup.py soak|memory|steps``: one whole-process memory figure
    alone."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("what", nargs="?", default="first-board", choices=("first-board", "soak", "memory", "steps"))
    parser.add_argument("--per", type=int, nargs="+", default=[16, 64], help="first-board: active sessions per harness")
    parser.add_argument(
        "--runs", type=int, default=9, help="first-board: starts per figure; memory --against: runs of each"
    )
    parser.add_argument(
        "--against", type=Path, default=None, help="first-board, memory: another checkout (e.g. git archive of main)"
    )
    parser.add_argument("--minutes", type=float, default=10.0, help="soak: the window")
    parser.add_argument("--sample-s", type=float, default=10.0, help="soak: seconds between samples")
    parser.add_argument("--seconds", type=float, default=60.0, help="memory: seconds of appends")
    parser.add_argument("--per-harness", type=int, default=64, help="memory, steps: active sessions per harness")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures here as JSON")
    args = parser.parse_args(argv)
    result: dict[str, Any]
    if args.what == "first-board":
        result = {"when": datetime.now(UTC).isoformat()}
        for per in args.per:
            if args.against is not None:
                result[str(per * 10)] = compare(per, runs=args.runs, against=args.against.resolve())
            else:
                result[str(per * 10)] = figures(per, runs=args.runs, idle_s=0.0)
            print(json.dumps(result[str(per * 10)], indent=2), flush=True)
    elif args.what == "soak":
        result = soak(args.minutes * 60.0, sample_s=args.sample_s, progress=True)
        print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=2))
    elif args.what == "steps":
        result = memory_steps(args.per_harness)
        print(json.dumps(result, indent=2))
    elif args.against is not None:  # memory, this checkout against another, interleaved
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "now": []}
        for i in range(args.runs):
            for name in ("before", "now") if i % 2 == 0 else ("now", "before"):
                code = args.against.resolve() if name == "before" else None
                runs[name].append(memory(args.per_harness, appends_s=args.seconds, code=code))
                print(name, json.dumps(runs[name][-1]), flush=True)
        key = f"server_peak_rss_{args.per_harness * 10}_mb"
        result = {
            "against": str(args.against),
            **{f"{name}_{key}": _summary([r[key] for r in found]) for name, found in runs.items()},
            **{
                f"{name}_rss_after_start_mb": _summary([r["rss_after_start_mb"] for r in found])
                for name, found in runs.items()
            },
            "runs": runs,
        }
        print(json.dumps({k: v for k, v in result.items() if k != "runs"}, indent=2))
    else:
        result = memory(args.per_harness, appends_s=args.seconds)
        print(json.dumps(result, indent=2))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
