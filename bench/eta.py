"""The turn estimate, measured: its error over the recorded and the demo corpora.

Every session of the corpora gives its completed turns' durations in order (``completed_s``,
as the harness's reader recorded them). For each completed turn with at least ``MIN_SAMPLE``
turns before it, the estimate is asked as :func:`cargento.turns.estimate` would be asked on a
board, at four moments of that turn (0, 25, 50 and 75 % of its length), from the turns before
it only; the truth is what was left of the turn. Beside it, the guess of knowing nothing about
the session: the corpus's median turn length less the time already spent. An estimate that is
no better than that guess for a harness is withheld on its rows (``turn_eta.json``).

    python bench/eta.py            # print the figures
    python bench/eta.py --write    # also write docs/turn-eta.md and the packaged turn_eta.json

Deterministic: the recorded stores are fixed and every demo is seeded.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
from collections.abc import Iterable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from cargento.models import TurnEvidence
from cargento.testing.demo import DemoViewer
from cargento.testing.homes import copy_golden, make_context
from cargento.testing.maturity import GOLDEN_HARNESS, HARNESSES
from cargento.turns import MIN_SAMPLE, estimate

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
GOLDEN = REPO / "testdata" / "golden"
DOC = REPO / "docs" / "turn-eta.md"
DATA = REPO / "cargento-core" / "src" / "cargento" / "turn_eta.json"
#: How long each demo is played, and how often it is stepped.
DEMO_S = 2 * 3600
STEP_S = 30
#: The moments of a turn the estimate is asked at, as shares of its length.
MOMENTS = (0.0, 0.25, 0.5, 0.75)


def _plugin(key: str) -> Any:
    return importlib.import_module(f"cargento_harness_{key}.plugin")


def _turns(plugin: Any, home: Path, env: dict[str, str] | None, now: Any) -> Iterator[tuple[float, ...]]:
    ctx = (
        make_context(home, env=env, now=now, window_s=None)
        if env is not None
        else make_context(home, now=now, window_s=None)
    )
    for ref in plugin.discover(ctx=ctx).sessions:
        reading = plugin.read_session(ref=ref, ctx=ctx)
        if reading is not None and reading.turn.completed_s:
            yield tuple(reading.turn.completed_s)


def recorded_corpus(scratch: Path) -> dict[str, list[tuple[float, ...]]]:
    """Per harness, the completed-turn sequences of its recorded stores."""
    from cargento.testing.golden import snapshot_moment

    out: dict[str, list[tuple[float, ...]]] = {}
    for n, row in enumerate(json.loads((GOLDEN / "index.json").read_text())):
        key = GOLDEN_HARNESS[row["harness"]]
        home, truth = copy_golden(row["dir"], scratch / f"golden-{n}")
        out.setdefault(key, []).extend(_turns(_plugin(key), home, None, snapshot_moment(truth)))
    return out


def demo_corpus(key: str, scratch: Path) -> list[tuple[float, ...]]:
    """The completed-turn sequences of *key*'s demo, played for :data:`DEMO_S`."""
    plugin = _plugin(key)
    viewer: DemoViewer[Any] = DemoViewer(scratch / f"demo-{key}", plugin, key)
    for seconds in range(0, DEMO_S + 1, STEP_S):
        viewer.step(float(seconds))
    return list(_turns(plugin, viewer.home, viewer.env, viewer.moment(float(DEMO_S))))


def points(sequences: Iterable[tuple[float, ...]], typical: float) -> list[tuple[float | None, float, float]]:
    """``(estimate, truth, know-nothing guess)`` at each moment of each evaluable turn."""
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, tzinfo=UTC)
    out: list[tuple[float | None, float, float]] = []
    for durations in sequences:
        for k in range(MIN_SAMPLE, len(durations)):
            length = durations[k]
            for share in MOMENTS:
                elapsed = length * share
                turn = TurnEvidence(
                    state="open", started_at=now - timedelta(seconds=elapsed), completed_s=durations[:k]
                )
                figures = estimate(turn, now)
                guess = figures.eta_s if figures is not None else None
                out.append((guess, length - elapsed, max(0.0, typical - elapsed)))
    return out


def figures(found: list[tuple[float | None, float, float]]) -> dict[str, Any]:
    """Mean and median absolute error, share of moments with an estimate, and the baseline."""
    with_estimate = [(e, t, b) for e, t, b in found if e is not None]
    errors = [abs(e - t) for e, t, _ in with_estimate]
    baseline = [abs(b - t) for _, t, b in with_estimate]
    return {
        "moments": len(found),
        "estimated_share": round(len(with_estimate) / len(found), 3) if found else None,
        "mean_abs_error_s": round(statistics.fmean(errors), 1) if errors else None,
        "median_abs_error_s": round(statistics.median(errors), 1) if errors else None,
        "baseline_mean_abs_error_s": round(statistics.fmean(baseline), 1) if baseline else None,
    }


def measure() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        recorded = recorded_corpus(scratch)
        demo = {key: demo_corpus(key, scratch) for key in HARNESSES}
    every = [d for seqs in (*recorded.values(), *demo.values()) for seq in seqs for d in seq]
    typical = statistics.median(every) if every else 0.0
    harnesses: dict[str, Any] = {}
    for key in HARNESSES:
        sequences = [*recorded.get(key, []), *demo.get(key, [])]
        found = figures(points(sequences, typical))
        found["recorded_turns"] = sum(len(s) for s in recorded.get(key, []))
        found["demo_turns"] = sum(len(s) for s in demo.get(key, []))
        mean, base = found["mean_abs_error_s"], found["baseline_mean_abs_error_s"]
        # No better than knowing nothing: not strictly below the baseline (two perfect guesses
        # on turns of one fixed length are a tie that withholds nothing).
        found["withheld"] = mean is not None and base is not None and mean >= base and mean > 0
        harnesses[key] = found
    overall = figures(points([s for seqs in (*recorded.values(), *demo.values()) for s in seqs], typical))
    return {"typical_turn_s": round(typical, 1), "overall": overall, "harnesses": harnesses}


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "withheld" if value else "shown"
    return f"{value:g}" if isinstance(value, float) else str(value)


def render_markdown(result: dict[str, Any]) -> str:
    lines = [
        "# Turn ETA, measured",
        "",
        "<!-- Generated by `python bench/eta.py --write`; do not edit by hand. -->",
        "",
        "The running turn's estimate (\"est. remaining\") compares it with the same session's",
        "completed turns. Measured here over every recorded store (`testdata/golden`) and every",
        f"harness's demo played for {DEMO_S // 3600} hours: for each completed turn with at least {MIN_SAMPLE} turns",
        "before it, the estimate is asked at 0, 25, 50 and 75 % of that turn, from the turns before",
        "it only, and compared with what was left of the turn. The baseline is the guess of knowing",
        f"nothing about the session: the corpora's median turn ({result['typical_turn_s']:g} s) less the time spent.",
        "A harness whose estimate is no better than that baseline has its estimate withheld on its",
        "rows (`cargento/turn_eta.json`); where nothing could be measured it is shown as before.",
        "",
        "| Harness | Recorded turns | Demo turns | Moments | Share with an estimate | Mean abs error (s) | Median abs error (s) | Baseline mean abs error (s) | Estimate |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, f in result["harnesses"].items():
        lines.append(
            f"| {key} | {f['recorded_turns']} | {f['demo_turns']} | {f['moments']} | {_cell(f['estimated_share'])} | "
            f"{_cell(f['mean_abs_error_s'])} | {_cell(f['median_abs_error_s'])} | "
            f"{_cell(f['baseline_mean_abs_error_s'])} | {_cell(f['withheld'])} |"
        )
    o = result["overall"]
    lines += [
        f"| all | | | {o['moments']} | {_cell(o['estimated_share'])} | {_cell(o['mean_abs_error_s'])} | "
        f"{_cell(o['median_abs_error_s'])} | {_cell(o['baseline_mean_abs_error_s'])} | |",
        "",
        "The recorded stores hold one or two turns per session, too few for an estimate: what is",
        "measured there is that none is offered. The demo corpora are scripted, so these figures say",
        "how the estimator behaves on turns of a regular length, not on a person's real work.",
        "",
    ]
    return "\n".join(lines)


def render_data(result: dict[str, Any]) -> str:
    withheld = sorted(k for k, f in result["harnesses"].items() if f["withheld"])
    return json.dumps({"withheld": withheld, "measured": result}, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/eta.py")
    parser.add_argument("--write", action="store_true", help="write docs/turn-eta.md and turn_eta.json")
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed file differs")
    args = parser.parse_args(argv)
    result = measure()
    wanted = {DOC: render_markdown(result), DATA: render_data(result)}
    print(render_markdown(result))
    if args.check:
        stale = [p for p, text in wanted.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"{p} is out of date: run python bench/eta.py --write", file=sys.stderr)
        return 1 if stale else 0
    if args.write:
        for p, text in wanted.items():
            p.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
