"""The one way a JSON answer leaves the server: every string in it redacted first.

Every route answers with :class:`OutboundJSON` (or, for the board document, with bytes
:func:`cargento_web.app.document` built through the same :func:`cargento.redact.redact_tree`),
so a credential-shaped value a hook payload, a store or a plugin carried never reaches a page
or a client. ``tests/test_outbound.py`` enumerates the routes and the response constructions so
a new path cannot skip it.
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from cargento.redact import redact, redact_tree
from starlette.responses import Response

__all__ = ["OutboundJSON", "RedactingFilter", "install_log_redaction"]


class OutboundJSON(Response):
    """A JSON response whose every string value went through :func:`redact_tree`."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(redact_tree(content), option=orjson.OPT_NON_STR_KEYS)


class RedactingFilter(logging.Filter):
    """Redacts a log record's message and traceback before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact(text)
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Put one :class:`RedactingFilter` on *logger* (the ``cargento_web`` logger by default)."""
    target = logger if logger is not None else logging.getLogger("cargento_web")
    if not any(isinstance(f, RedactingFilter) for f in target.filters):
        target.addFilter(RedactingFilter())
