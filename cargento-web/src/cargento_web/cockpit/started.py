"""How this server was started, in flags, for the Console's one disclosure."""

from __future__ import annotations

from datetime import datetime

import attrs
from cargento.cli import Options

__all__ = ["started_flags"]

#: Options whose value is not shown (a URL can carry a token), only that it was given.
_WITHHELD = {"reach_url", "otlp_endpoint", "interaction_origin_registration_file"}
#: Options that are not run switches (one-shot commands, output shape).
_SKIP = {"diagnose", "json", "status", "stop", "forget", "daemon", "open_browser", "verbose"}


def started_flags(options: Options) -> list[str]:
    """Every run option that differs from its default, as the flag that set it."""
    flags: list[str] = []
    for field in attrs.fields(Options):
        if field.name in _SKIP:
            continue
        value = getattr(options, field.name)
        default = field.default
        if value == default:
            continue
        flag = "--" + field.name.replace("_", "-")
        if field.name == "observer_model":
            flags.append("--observer-model" if value else "--no-observer-model")
        elif isinstance(value, bool):
            flags.append(flag if value else f"{flag}=false")
        elif field.name in _WITHHELD:
            flags.append(f"{flag} (given)")
        elif isinstance(value, datetime):
            flags.append(f"{flag} {value.isoformat()}")
        else:
            flags.append(f"{flag} {value}")
    return flags
