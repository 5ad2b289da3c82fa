"""The ``cargento`` command: bad input is one line, --json/--as-of/--diagnose/hooks work with core
and a plugin alone (a throwaway third-party distribution, no first-party harness, no web), and
serving is found through the ``cargento.serve`` entry-point group."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
from cargento.cli import main

EXE = [sys.executable, "-m", "cargento.cli"]


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_", "PI_CODING"))
    }
    full.update(env or {})
    return subprocess.run(EXE + args, capture_output=True, text=True, env=full, timeout=120)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--bogus"], "unrecognized arguments"),
        (["--port", "70000"], "1 to 65535"),
        (["--port", "0"], "1 to 65535"),
        (["--port", "abc"], "whole number"),
        (["--host", "192.168.1.5"], "127.0.0.1"),
        (["--host", "localhost"], "0.0.0.0"),
        (["--window-hours", "-3"], "positive"),
        (["--as-of", "tomorrow"], "ISO-8601"),
        (["--status", "--stop"], "choose one"),
        (["--forget", "--stop"], "choose one"),
        (["--forget", "--demo"], "--demo serves"),
        (["--history-days", "0"], "more than zero"),
        (["--history-days", "-1"], "more than zero"),
        (["--history-days", "soon"], "number of days"),
        (["--history-max-bytes", "0"], "more than zero"),
        (["--history-max-bytes", "1.5"], "whole number"),
        (["--observer-model", "--no-observer-model"], "not allowed with"),
        (["--no-observer-model", "--unasked-readings"], "refuses every model call"),
        (["--interaction-origin-session", "claude:abc"], "needs both"),
        (["--interaction-origin-registration-file", "/tmp/x"], "needs both"),
        (["--interaction-origin-session", "claude", "--interaction-origin-registration-file", "/x"], "<harness>:"),
        (["--reach-url", "ftp://example.com/x"], "http:// or https://"),
        (["--reach-url", "https://ntfy.sh/t", "--no-reach"], "contradict"),
        (["--quiet-hours", "22:00-07:00", "--no-quiet-hours"], "contradict"),
        (["--otlp-port", "70000"], "0 (off) to 65535"),
        (["--otlp-endpoint", "collector:4318"], "http:// or https://"),
    ],
)
def test_bad_input_is_one_clear_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_every_run_switch_of_the_options_table_parses() -> None:
    from cargento.cli import parse_args

    options = parse_args(
        [
            "--observer-model",
            "--unasked-readings",
            "--no-spacedock",
            "--no-tripwires",
            "--no-usage",
            "--no-git",
            "--no-dismiss",
            "--no-annotations",
            "--no-ask",
            "--no-focus",
            "--no-history",
            "--reach-url",
            "https://ntfy.sh/my-topic",
            "--quiet-hours",
            "22:00-07:00",
            "--history-days",
            "3.5",
            "--history-max-bytes",
            "4096",
            "--otlp-port",
            "0",
            "--interaction-origin-session",
            "claude:0a1b",
            "--interaction-origin-registration-file",
            "/private/reg",
        ]
    )
    assert options.observer_model is True and options.unasked_readings
    assert options.no_spacedock and options.no_tripwires and options.no_usage and options.no_git
    assert options.no_dismiss and options.no_annotations and options.no_ask and options.no_focus
    assert options.no_history and options.reach_url == "https://ntfy.sh/my-topic"
    assert options.quiet_hours == "22:00-07:00" and options.history_days == 3.5
    assert options.history_max_bytes == 4096 and options.otlp_port == 0
    assert options.interaction_origin_session == "claude:0a1b"
    assert parse_args([]).observer_model is None, "neither flag: the default, not a refusal"
    assert parse_args(["--no-observer-model"]).observer_model is False
    assert parse_args(["--forget"]).forget


_SITE_PLUGIN = """
from datetime import datetime, timezone
from pathlib import Path

from cargento import hookimpl
from cargento.events.targets import HookTarget
from cargento.models import HarnessInfo
from cargento.testing.fakes import FakeHarness, FakeSession


class Plugin(FakeHarness):
    @hookimpl
    def harness_info(self):
        return HarnessInfo(key="xfake", label="X Fake", relocation_variables=("XFAKE_HOME",))

    @hookimpl
    def hook_targets(self, env, home, project):
        base = Path(env.get("XFAKE_HOME") or home / ".xfake")
        return (HookTarget(name="xfake", style="settings", path=base / "settings.json", arguments=("xfake",), events=("Begin", "End")),)


PLUGIN = Plugin("xfake", [FakeSession("abc", at=datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc))])
"""


def _site(tmp_path: Path, *, serve: str | None = None) -> dict[str, str]:
    """A throwaway site directory holding the ``xfake`` harness distribution (and, with *serve*,
    a ``cargento.serve`` entry point); the environment that loads only it."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "xfake_plugin.py").write_text(_SITE_PLUGIN)
    info = site / "cargento_harness_xfake-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cargento-harness-xfake\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[cargento.harness]\nxfake = xfake_plugin:PLUGIN\n")
    return {"HOME": str(tmp_path / "home"), "PYTHONPATH": str(site), "CARGENTO_LOAD_PLUGINS": "xfake"}


def test_json_snapshot_with_as_of_and_a_plugin_alone(tmp_path: Path) -> None:
    env = _site(tmp_path)
    out = _run(["--json", "--as-of", "2026-11-30T00:00:00Z"], env)
    assert out.returncode == 0, out.stderr
    doc = orjson.loads(out.stdout)
    assert doc["schema"] == 1 and doc["as_of"] == "2026-11-30T00:00:00Z"
    assert [h["key"] for h in doc["harnesses"] if h["plugin"]["status"] == "loaded"] == ["xfake"]
    assert [s["session_id"] for s in doc["sessions"]] == ["abc"]
    later = _run(["--json", "--as-of", "2027-06-01T00:00:00Z"], env)
    assert orjson.loads(later.stdout)["sessions"] == [], "outside the window as of a later moment"


def test_diagnose_prints_the_declared_relocation_variables_that_are_set(tmp_path: Path) -> None:
    env = {**_site(tmp_path), "XFAKE_HOME": str(tmp_path / "relocated"), "SOME_OTHER_HOME": "/nowhere"}
    out = _run(["--diagnose", "--json"], env)
    assert out.returncode == 0, out.stderr
    report = orjson.loads(out.stdout)
    names = {p["name"]: p for p in report["plugins"]}
    assert names["xfake"]["status"] == "loaded" and names["xfake"]["dist"] == "cargento-harness-xfake"
    assert report["relocation"]["XFAKE_HOME"] == str(tmp_path / "relocated")
    assert "SOME_OTHER_HOME" not in report["relocation"]
    text = _run(["--diagnose"], env)
    assert "cargento.harness" in text.stdout and f"XFAKE_HOME={tmp_path / 'relocated'}" in text.stdout


def test_diagnose_exits_non_zero_when_a_plugin_fails(tmp_path: Path) -> None:
    env = _site(tmp_path)
    site = Path(env["PYTHONPATH"])
    (site / "xbroken_plugin.py").write_text("raise RuntimeError('broken on import')\n")
    info = site / "cargento_harness_xbroken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cargento-harness-xbroken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("[cargento.harness]\nxbroken = xbroken_plugin\n"))
    env["CARGENTO_LOAD_PLUGINS"] = "xfake,xbroken"
    out = _run(["--diagnose"], env)
    assert out.returncode == 1
    assert "xbroken" in out.stdout and "import-error" in out.stdout and "broken on import" in out.stdout
    assert "xfake" in out.stdout, "the other plugins still load"
    blocked = _run(["--diagnose"], {**env, "CARGENTO_BLOCK_PLUGINS": "xbroken"})
    assert blocked.returncode == 0


def test_hooks_subcommand_learns_its_targets_from_the_plugins(tmp_path: Path) -> None:
    env = _site(tmp_path)
    out = _run(["hooks", "show"], env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("xfake          not installed; 0 other handler(s) left alone:")
    assert _run(["hooks", "install", "xfake"], env).returncode == 0
    settings = (tmp_path / "home" / ".xfake" / "settings.json").read_text()
    assert "cargento.forwarders.event_hook xfake" in settings
    assert "2/2 events installed" in _run(["hooks"], env).stdout
    bindir = Path(sys.executable).parent
    for script in ("cargento-notify-hook", "cargento-event-hook", "cargento-statusline-hook"):
        done = subprocess.run(
            [str(bindir / script)],
            input=b"{}",
            capture_output=True,
            timeout=60,
            env={"HOME": str(tmp_path), "CARGENTO_HOME": str(tmp_path / "none"), "PATH": os.environ["PATH"]},
        )
        assert done.returncode == 0 and done.stdout == b"", (script, done)


class _EntryPoint:
    def __init__(self, name: str, target: object) -> None:
        self.name = name
        self._target = target

    def load(self) -> object:
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


def test_serve_without_a_registered_implementation_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cargento import entrypoints

    groups: list[str] = []

    def entry_points(group: str) -> list[_EntryPoint]:
        groups.append(group)
        return [_EntryPoint("web", ImportError("gone"))]

    monkeypatch.setattr(entrypoints, "entry_points", entry_points)
    assert main(["--port", "4999"]) == 2
    assert groups == ["cargento.serve"]
    assert (
        capsys.readouterr().err
        == "cargento: the dashboard needs cargento-web, which is not installed (pip install cargento)\n"
    )


def test_serve_hands_the_options_to_the_registered_implementation(monkeypatch: pytest.MonkeyPatch) -> None:
    from cargento import entrypoints
    from cargento.cli import Options

    seen: list[Options] = []

    def run(options: Options) -> int:
        seen.append(options)
        return 7

    monkeypatch.setattr(
        entrypoints, "entry_points", lambda group: [_EntryPoint("zzz", ImportError("x")), _EntryPoint("web", run)]
    )
    assert main(["--port", "4999", "--no-notify"]) == 7
    assert [(o.port, o.no_notify) for o in seen] == [(4999, True)]


def test_diagnose_names_the_dashboards_own_stores() -> None:
    from datetime import UTC, datetime

    from cargento.diagnose import OwnStore, Report, render_json, render_text

    report = Report(
        core_version="0",
        generated_at=datetime(2026, 12, 1, tzinfo=UTC),
        window_hours=24.0,
        relocation={},
        plugins=(),
        harnesses=(),
        ok=True,
        own_stores=(
            OwnStore(
                name="annotations", path="/h/.cargento/cargento-annotations.json", status="read", detail="3 records"
            ),
            OwnStore(name="history", path="/h/.cargento/cargento-history.json", status="unreadable", detail="not JSON"),
        ),
    )
    text = render_text(report)
    assert "annotations  /h/.cargento/cargento-annotations.json · read (3 records)" in text
    assert "history      /h/.cargento/cargento-history.json · unreadable (not JSON)" in text
    assert orjson.loads(render_json(report))["own_stores"][1]["status"] == "unreadable"
