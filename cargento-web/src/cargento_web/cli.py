"""What ``cargento`` hands to the web app: serving, ``--daemon``, ``--status``, ``--stop``,
``--forget``."""

from __future__ import annotations

import os
import sys

from cargento.cli import Options

from cargento_web.arenas import tune_malloc
from cargento_web.environment import serving_environment
from cargento_web.server import serve

__all__ = ["os_error_line", "run", "serve_options"]


def serve_options(options: Options, *, log_path: str | None = None) -> int:
    """Serve in the foreground the environment *options* select."""
    tune_malloc()  # before any thread starts
    served = serving_environment(options)
    return serve(options, served, log_path=log_path)


def run(options: Options) -> int:
    """Carry out a serving command; returns the process exit code."""
    try:
        if options.status or options.stop:
            # The daemon and its controls are imported by those commands alone, not to serve.
            from cargento_web import lifecycle

            return lifecycle.status(options.port) if options.status else lifecycle.stop(options.port)
        if options.forget:
            from cargento_web.forget import forget

            return forget(options.port)
        if options.daemon:
            from cargento_web import lifecycle

            return lifecycle.daemon(options)
        return serve_options(options)
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        print(f"cargento: {os_error_line(exc)}", file=sys.stderr)
        return 1


def os_error_line(exc: OSError) -> str:
    """An OS error in one line that names the path it concerns (``<path>: Permission denied``)."""
    text = exc.strerror or str(exc)
    paths = [p for p in (exc.filename, exc.filename2) if p is not None]
    if not paths:
        return text
    return f"{' -> '.join(os.fsdecode(p) for p in paths)}: {text}"
