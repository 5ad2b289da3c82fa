"""The page's figures for ``nox -s bench``: a revision's render, and the page's idle cost.

A real ``cargento`` server over the synthetic store (``bench/stores.py``) and the Debian
Chromium driven by Playwright, as the browser tests do:

- ``page_revision_ms``: the page's own work on one board revision, from the moment the
  ``/api/data`` text arrived to the render's commit (the page's ``cargento:revision``
  performance measure), each revision caused by one record appended to one transcript;
- ``page_idle_cpu_percent``: the renderer's CPU (Chrome DevTools Protocol ``Performance``
  metrics: script, layout, style and task time) over a quiet window with the board open and
  no store written, as a share of one core (``revisions_drawn`` says how many revisions the
  clock alone made the server publish meanwhile: an idle row's "last active" wording).

Run alone with ``python bench/page.py [--per-harness 64] [--revisions 20] [--idle 30]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import startup  # noqa: E402
import stores  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"]


def _summary(samples: list[float]) -> dict[str, float]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples), "n": len(samples)}


def _cpu_s(metrics: dict[str, float]) -> float:
    """The renderer's busy time the Performance domain reports (seconds)."""
    return metrics.get("TaskDuration", 0.0)


_DRAWN = "performance.getEntriesByName('cargento:revision').length"


def _idle(page: Any, idle_s: float) -> dict[str, Any]:
    """The renderer's busy time over *idle_s* quiet seconds (CDP Performance metrics)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    time.sleep(2.0)

    def metrics() -> dict[str, float]:
        got = cdp.send("Performance.getMetrics")
        return {m["name"]: float(m["value"]) for m in got["metrics"]}

    drawn = page.evaluate(_DRAWN)
    start = metrics()
    wall = time.perf_counter()
    time.sleep(idle_s)
    end = metrics()
    wall = time.perf_counter() - wall
    busy = _cpu_s(end) - _cpu_s(start)
    return {
        "window_s": wall,
        "revisions_drawn": page.evaluate(_DRAWN) - drawn,
        "task_s": busy,
        "script_s": end.get("ScriptDuration", 0.0) - start.get("ScriptDuration", 0.0),
        "layout_s": end.get("LayoutDuration", 0.0) - start.get("LayoutDuration", 0.0),
        "style_s": end.get("RecalcStyleDuration", 0.0) - start.get("RecalcStyleDuration", 0.0),
        "page_idle_cpu_percent": 100.0 * busy / wall,
    }


def _renders(page: Any, lives: list[Any], revisions: int) -> list[float]:
    """The page's work on each of *revisions* revisions, one record appended for each."""
    renders: list[float] = []
    for i in range(revisions):
        count = page.evaluate(_DRAWN)
        live = lives[(i * 7) % len(lives)]
        live.append(datetime.now(UTC))
        try:
            page.wait_for_function(f"n => {_DRAWN} > n", arg=count, timeout=5_000)
        except Exception:  # no revision within the wait: not a render to time
            continue
        renders.append(
            page.evaluate(
                "(() => { const e = performance.getEntriesByName('cargento:revision'); "
                "return e[e.length - 1].duration; })()"
            )
        )
        time.sleep(0.3)
    return renders


def figures(per_harness: int, *, revisions: int = 20, idle_s: float = 30.0) -> dict[str, Any]:
    """Render time of *revisions* revisions at ``per_harness * 10`` sessions, and the page's
    CPU over *idle_s* quiet seconds."""
    if not os.path.exists(CHROMIUM):
        return {"skipped": f"{CHROMIUM} is absent"}
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="cargento-page-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        home = root / "home"
        lives = stores.populate(home, per_harness, datetime.now(UTC))
        env = startup._env(home, root / "state")
        port = startup._free_port()
        proc, _ = startup._serve(env, port)
        base = f"http://127.0.0.1:{port}/"
        sessions = len(httpx.get(base + "api/data", timeout=30).json()["sessions"])
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(base)
            page.wait_for_selector("li.row[data-key]", timeout=30_000)
            page.wait_for_function(
                "n => document.querySelectorAll('li.row[data-key]').length >= n", arg=sessions, timeout=30_000
            )
            time.sleep(1.0)
            out: dict[str, Any] = {"sessions": sessions}
            if idle_s > 0:
                out["idle"] = _idle(page, idle_s)
            renders = _renders(page, lives, revisions)
            browser.close()
        if renders:
            out["page_revision_ms"] = {**_summary(renders), "p90": sorted(renders)[int(0.9 * (len(renders) - 1))]}
        return out
    finally:
        if proc is not None:
            startup._stop(proc)
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-harness", type=int, default=64)
    parser.add_argument("--revisions", type=int, default=20)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args()
    print(json.dumps(figures(args.per_harness, revisions=args.revisions, idle_s=args.idle), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
