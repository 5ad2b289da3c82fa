"""The dashboard page: one HTML document, its import map, and the policy that pins it."""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from cargento_web.settings import Settings

__all__ = ["IMPORT_MAP", "Page", "render_page"]

#: Bare module names the vendored modules import, resolved to the package's own copies.
IMPORT_MAP = {"imports": {"preact": "/static/vendor/preact.mjs", "preact/hooks": "/static/vendor/preact-hooks.mjs"}}


class Page:
    """The rendered page and its Content-Security-Policy."""

    def __init__(self, body: bytes, csp: str) -> None:
        self.body = body
        self.csp = csp


def _template() -> str:
    # Beside this module, where the static mount serves the page's files from too
    # (``importlib.resources`` would import zipfile and its readers at every start).
    return (Path(__file__).parent / "static" / "index.html").read_text(encoding="utf-8")


def render_page(
    settings: Settings,
    *,
    notifications: Mapping[str, Any] | None = None,
    store_resets: Sequence[Mapping[str, Any]] = (),
    features: Mapping[str, Any] | None = None,
) -> Page:
    """Fill the page template with this server's settings; nothing on it comes from a CDN.

    *notifications* is the native-notification availability checked at start (with whether
    lifecycle events are on), shown on the page rather than assumed. *store_resets* are the
    server's own stores that could not be read at start (``store``, ``text``, ``at``), which
    the header names. *features* is each operator feature's page configuration, by name
    (``config.features``).
    """
    importmap = orjson.dumps(IMPORT_MAP).decode()
    digest = base64.b64encode(hashlib.sha256(importmap.encode()).digest()).decode()
    config = {
        "heartbeat_s": settings.heartbeat_s,
        "all": settings.all_sessions,
        "version": settings.version,
        "notifications": dict(notifications) if notifications is not None else None,
        "store_resets": [dict(r) for r in store_resets],
        "features": dict(features or {}),
    }
    text = (
        _template()
        .replace("{{IMPORTMAP}}", importmap)
        .replace("{{CONFIG}}", html.escape(orjson.dumps(config).decode(), quote=True))
        .replace("{{VERSION}}", html.escape(settings.version))
    )
    csp = (
        "default-src 'none'; "
        f"script-src 'self' 'sha256-{digest}'; "
        "style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; "
        "manifest-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return Page(text.encode("utf-8"), csp)
