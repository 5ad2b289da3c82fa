"""``cargento telemetry show|install|remove``: settings merged with a backup and only
Cargento's values taken out again, a TOML table between marker lines (an existing ``[otel]``
left alone), environment-only harnesses told what to export and nothing written, prompt
logging never switched on."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cargento.plugins import load_registry
from cargento.telemetry.setup_cmd import BEGIN, main

NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


def _run(home: Path, *args: str) -> int:
    return main(list(args), env={"HOME": str(home)}, now=NOW, registry=load_registry())


def test_claude_install_merges_into_settings_and_remove_takes_out_only_ours(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"model": "opus", "env": {"MY_VAR": "1"}}))
    assert _run(tmp_path, "install", "claude") == 0
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus" and merged["env"]["MY_VAR"] == "1"
    assert merged["env"]["CLAUDE_CODE_ENABLE_TELEMETRY"] == "1"
    assert merged["env"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:4318"
    assert "OTEL_LOG_USER_PROMPTS" not in merged["env"], "prompt logging is never switched on"
    assert (tmp_path / ".claude" / "settings.json.cargento-backup-20261201120000").exists()
    assert _run(tmp_path, "install", "claude") == 0
    assert "already installed" in capsys.readouterr().out
    merged["env"]["OTEL_METRICS_EXPORTER"] = "console"  # the user changed one of ours
    settings.write_text(json.dumps(merged))
    assert _run(tmp_path, "remove", "claude") == 0
    left = json.loads(settings.read_text())
    assert left == {"model": "opus", "env": {"MY_VAR": "1", "OTEL_METRICS_EXPORTER": "console"}}


def test_gemini_install_writes_the_telemetry_object_with_prompt_logging_off(tmp_path: Path) -> None:
    assert _run(tmp_path, "install", "gemini") == 0
    telemetry = json.loads((tmp_path / ".gemini" / "settings.json").read_text())["telemetry"]
    assert telemetry["enabled"] is True and telemetry["logPrompts"] is False
    assert telemetry["otlpEndpoint"] == "http://127.0.0.1:4318" and telemetry["otlpProtocol"] == "http"
    assert _run(tmp_path, "remove", "gemini") == 0
    assert json.loads((tmp_path / ".gemini" / "settings.json").read_text()) == {}


def test_codex_gets_one_table_between_markers_and_an_existing_otel_table_is_left_alone(tmp_path: Path) -> None:
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "gpt-5"\n')
    assert _run(tmp_path, "install", "codex", "--otlp-port", "14318") == 0
    text = config.read_text()
    assert text.startswith('model = "gpt-5"\n') and BEGIN in text and "log_user_prompt = false" in text
    assert 'endpoint = "http://127.0.0.1:14318/v1/logs"' in text
    import tomllib

    assert tomllib.loads(text)["otel"]["exporter"]["otlp-http"]["protocol"] == "binary"
    assert _run(tmp_path, "remove", "codex") == 0
    assert config.read_text() == 'model = "gpt-5"\n'
    config.write_text('[otel]\nexporter = "none"\n')
    assert _run(tmp_path, "install", "codex") == 1
    assert config.read_text() == '[otel]\nexporter = "none"\n'


def test_an_environment_only_harness_is_told_what_to_export_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, "install", "copilot") == 1
    err = capsys.readouterr().err
    assert "export COPILOT_OTEL_ENABLED=true" in err and "nothing was written" in err
    assert not any(tmp_path.iterdir())
    assert _run(tmp_path, "show", "copilot") == 0
    out = capsys.readouterr().out
    assert "environment only" in out and "export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318" in out


def test_an_unparsable_settings_file_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{not json")
    assert _run(tmp_path, "install", "claude") == 1
    assert settings.read_text() == "{not json" and "not valid JSON" in capsys.readouterr().err


def test_show_lists_every_harness_that_declares_telemetry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, "show") == 0
    out = capsys.readouterr().out
    for key in ("claude", "codex", "copilot", "gemini", "goose"):
        assert f"{key}: " in out
    assert _run(tmp_path, "install", "pi") == 1
    assert "declares no telemetry" in capsys.readouterr().err
