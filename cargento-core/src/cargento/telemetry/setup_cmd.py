"""``cargento telemetry show|install|remove <harness>``: switch a harness's own OpenTelemetry
export to Cargento's receiver, or back off, the way ``cargento hooks`` edits settings.

A JSON settings file is merged key by key and the previous file kept beside it as a backup;
``remove`` takes out only the keys whose values are still the ones Cargento wrote. A TOML
file gets one table between marker lines, and one that already has an ``[otel]`` table is
left alone. A harness that reads its export settings only from its environment gets the
lines to put in the shell that starts it; nothing is written for it. Prompt logging is never
switched on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from cargento.events.settings import Refused, load_settings, save_file
from cargento.plugins import Registry
from cargento.telemetry.declared import declared_vocabularies
from cargento.telemetry.vocabulary import TelemetrySetup, TelemetryVocabulary

__all__ = ["BEGIN", "END", "install", "main", "remove", "show"]

DEFAULT_OTLP_PORT = 4318
BEGIN = "# >>> cargento telemetry (cargento telemetry remove takes this out)"
END = "# <<< cargento telemetry"
_OTEL_TABLE = re.compile(r"^\s*\[\s*otel(\s*\]|\.)", re.MULTILINE)


def _merge(base: dict[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in ours.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value if not isinstance(value, Mapping) else dict(value)
    return out


def _unmerge(base: dict[str, Any], ours: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in ours.items():
        if key not in out:
            continue
        if isinstance(value, Mapping) and isinstance(out[key], dict):
            rest = _unmerge(out[key], value)
            if rest:
                out[key] = rest
            else:
                del out[key]
        elif out[key] == value:
            del out[key]
    return out


def _state(setup: TelemetrySetup) -> str:
    path = setup.settings_path
    if path is None:
        return "environment only"
    try:
        if setup.toml_block is not None:
            text = path.read_text(encoding="utf-8") if path.exists() else ""
            if BEGIN in text:
                return "installed"
            return "another [otel] table is there" if _OTEL_TABLE.search(text) else "not installed"
        current = load_settings(path)
    except (OSError, Refused) as exc:
        return f"unreadable ({exc})"
    return "installed" if _merge(current, setup.settings) == current and setup.settings else "not installed"


def show(key: str, vocabulary: TelemetryVocabulary) -> list[str]:
    setup = vocabulary.setup
    lines = [f"{key}: {_state(setup)}"]
    if setup.settings_path is not None:
        lines.append(f"  file: {setup.settings_path}")
    if setup.toml_block is not None:
        lines.extend("  " + line for line in setup.toml_block.rstrip().splitlines())
    elif setup.settings:
        lines.extend("  " + line for line in json.dumps(setup.settings, indent=2).splitlines())
    if setup.environment and setup.settings_path is None:
        lines.extend(f"  export {k}={v}" for k, v in setup.environment.items())
    if setup.note:
        lines.append(f"  ({setup.note})")
    return lines


def install(key: str, vocabulary: TelemetryVocabulary, *, now: datetime) -> str:
    setup = vocabulary.setup
    path = setup.settings_path
    if path is None:
        exports = "; ".join(f"export {k}={v}" for k, v in setup.environment.items())
        raise Refused(f"{key} reads its export settings from its environment only, so nothing was written: {exports}")
    if setup.toml_block is not None:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if BEGIN in text:
            return f"{key}: already installed in {path}"
        if _OTEL_TABLE.search(text):
            raise Refused(
                f"{path} already has an [otel] table; nothing changed (point its exporter at the receiver by hand)"
            )
        joined = text + ("" if not text or text.endswith("\n") else "\n") + f"\n{BEGIN}\n{setup.toml_block}{END}\n"
        backup = save_file(path, joined, now)
    else:
        current = load_settings(path)
        merged = _merge(current, setup.settings)
        if merged == current:
            return f"{key}: already installed in {path}"
        backup = save_file(path, merged, now)
    return f"{key}: installed in {path}" + (f" (previous file kept as {backup.name})" if backup else "")


def remove(key: str, vocabulary: TelemetryVocabulary, *, now: datetime) -> str:
    setup = vocabulary.setup
    path = setup.settings_path
    if path is None:
        return f"{key}: nothing was written for it (its export settings live in its environment)"
    if not path.exists():
        return f"{key}: {path} does not exist; nothing to remove"
    if setup.toml_block is not None:
        text = path.read_text(encoding="utf-8")
        start, end = text.find(BEGIN), text.find(END)
        if start < 0 or end < start:
            return f"{key}: no Cargento table in {path}; nothing changed"
        stripped = text[:start].rstrip("\n") + "\n" + text[end + len(END) :].lstrip("\n")
        backup = save_file(path, stripped if stripped.strip() else "", now)
    else:
        current = load_settings(path)
        left = _unmerge(current, setup.settings)
        if left == current:
            return f"{key}: none of Cargento's settings are in {path}; nothing changed"
        backup = save_file(path, left, now)
    return f"{key}: removed from {path}" + (f" (previous file kept as {backup.name})" if backup else "")


def _registry(env: Mapping[str, str]) -> Registry:
    from cargento.plugins import load_registry

    return load_registry(env=env)


def main(
    argv: Sequence[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    now: datetime | None = None,
    registry: Registry | None = None,
) -> int:
    """``cargento telemetry ...``; returns the exit status."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(
        prog="cargento telemetry",
        description="Show, install or remove the settings a harness needs to export OpenTelemetry to Cargento.",
    )
    parser.add_argument("action", nargs="?", default="show", choices=("show", "install", "remove"))
    parser.add_argument("harnesses", nargs="*", metavar="HARNESS")
    parser.add_argument("--otlp-port", type=int, default=DEFAULT_OTLP_PORT, help="the receiver's port (default 4318)")
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:
        return int(exc.code or 0)
    if not 1 <= args.otlp_port <= 65535:
        print("cargento telemetry: --otlp-port must be from 1 to 65535", file=sys.stderr)
        return 2
    registry = registry if registry is not None else _registry(dict(env))
    vocabularies = declared_vocabularies(registry, env, f"http://127.0.0.1:{args.otlp_port}")
    names = sorted(vocabularies)
    chosen = args.harnesses or (names if args.action == "show" else [])
    if not chosen:
        print(f"cargento telemetry {args.action}: name a harness ({', '.join(names)})", file=sys.stderr)
        return 2
    moment = now or datetime.now(UTC)
    status = 0
    for key in chosen:
        vocabulary = vocabularies.get(key)
        try:
            if vocabulary is None:
                raise Refused(f"{key!r} declares no telemetry (choose from {', '.join(names)})")
            if args.action == "show":
                print("\n".join(show(key, vocabulary)))
            elif args.action == "install":
                print(install(key, vocabulary, now=moment))
            else:
                print(remove(key, vocabulary, now=moment))
        except Refused as exc:
            print(f"cargento telemetry: {exc}", file=sys.stderr)
            status = 1
        except OSError as exc:
            print(f"cargento telemetry: {exc.filename or key}: {exc.strerror or exc}; nothing changed", file=sys.stderr)
            status = 1
    return status
