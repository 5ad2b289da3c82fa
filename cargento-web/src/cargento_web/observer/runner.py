"""Running one provider call: the prompt on standard input, a time limit, and Cancel.

The call runs in a new process group from an empty scratch folder (so even a provider that
ignored its flags would find no project files there), with the prompt written to its standard
input and nothing on its command line but the fixed arguments of :mod:`.providers`. It ends one
of four ways (:class:`Call`): it answered (exit 0), it failed (another exit, or it could not be
started), it ran past the time limit, or it was cancelled; the last two kill its whole group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from typing import Literal

import attrs
from cargento.sharedmethods import shared_methods

from .limits import TIMEOUT_S

__all__ = ["TIMEOUT_S", "Call", "run_call"]

#: The most of a reply kept; a longer one is cut here (and then fails to parse).
_REPLY_LIMIT = 64 * 1024

Ending = Literal["answered", "failed", "timeout", "cancelled"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Call:
    ending: Ending
    stdout: str = ""
    #: Why it failed, in a sentence (never the provider's raw error output).
    detail: str | None = None
    exit_code: int | None = None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.wait(5)


def run_call(
    command: list[str],
    prompt: str,
    *,
    env: Mapping[str, str],
    cancelled: threading.Event,
    timeout_s: float = TIMEOUT_S,
    started: Callable[[], None] | None = None,
) -> Call:
    """Run *command* with *prompt* on standard input; *started* is called once the prompt is
    being sent (the moment the call can spend anything)."""
    with tempfile.TemporaryDirectory(prefix="cargento-reading-") as scratch:
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=scratch,
                env=dict(env),
                start_new_session=True,
            )
        except OSError as exc:
            return Call(ending="failed", detail=f"the reader could not be started ({exc.strerror or exc})")
        if started is not None:
            started()
        deadline = time.monotonic() + timeout_s
        data = prompt.encode("utf-8")
        out = b""
        first = True
        while True:
            if cancelled.is_set():
                _kill(proc)
                return Call(ending="cancelled")
            try:
                raw, _ = proc.communicate(data if first else None, timeout=0.1)
                out = raw or b""
                break
            except subprocess.TimeoutExpired:
                first = False
                if time.monotonic() > deadline:
                    _kill(proc)
                    return Call(ending="timeout", detail=f"the reader did not answer within {int(timeout_s)} seconds")
            except (BrokenPipeError, OSError):
                first = False
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(0.1)
                if proc.returncode is not None:
                    break
        text = out[:_REPLY_LIMIT].decode("utf-8", errors="replace")
        if proc.returncode != 0:
            return Call(
                ending="failed",
                stdout=text,
                exit_code=proc.returncode,
                detail=f"the reader exited with status {proc.returncode}",
            )
        return Call(ending="answered", stdout=text, exit_code=0)
