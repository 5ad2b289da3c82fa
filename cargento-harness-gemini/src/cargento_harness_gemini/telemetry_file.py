"""Where Gemini CLI writes its telemetry when ``telemetry.outfile`` is set in its user
settings: read from ``settings.json`` (read-only), an absolute or home-relative path only (a
relative one resolves against whatever directory Gemini CLI ran in, which nothing records)."""

from __future__ import annotations

from pathlib import Path

from cargento.readers.jsonobject import read_json_object

__all__ = ["outfile"]


def outfile(settings: Path, home: Path) -> Path | None:
    document = read_json_object(settings, max_bytes=1024 * 1024) or {}
    telemetry = document.get("telemetry")
    value = telemetry.get("outfile") if isinstance(telemetry, dict) else None
    if not isinstance(value, str) or not value.strip() or len(value) > 4096:
        return None
    text = value.strip()
    if text.startswith("~/"):
        return home / text[2:]
    path = Path(text)
    return path if path.is_absolute() else None
