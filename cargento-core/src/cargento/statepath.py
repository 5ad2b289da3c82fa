"""Where Cargento's state directory and a run's state file are, as plain strings.

The hook forwarders find the running dashboard's state file on every hook, so the rule lives
here with :mod:`os` alone (no :mod:`pathlib`); :mod:`cargento.statedir` gives the same places
as :class:`pathlib.Path` and re-exports the names below.
"""

from __future__ import annotations

import os

# ``typing`` and ``collections.abc`` only for the type checker: the hook forwarders import
# this module on every hook.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["CAPABILITY_HEADER", "HEALTH_CHALLENGE", "state_dir_path", "state_file_path"]

#: The header a forwarder sends the per-run capability in.
CAPABILITY_HEADER = "X-Cargento-Capability"
#: The ``/api/health`` query parameter a forwarder sends a fresh nonce in. The dashboard that
#: wrote the state file answers with the HMAC of it keyed by this run's capability
#: (:func:`cargento.statedir.health_proof`); a process that took the port after a crash
#: cannot, so it is sent neither the payload nor the capability.
HEALTH_CHALLENGE = "challenge"


def state_dir_path(env: Mapping[str, str]) -> str:
    """``$CARGENTO_HOME``, else ``~/.cargento`` (the user's home as *env* names it:
    ``HOME``, else ``USERPROFILE``, else the process's own home)."""
    value = env.get("CARGENTO_HOME", "").strip()
    if value:
        return os.path.expanduser(value)
    home = env.get("HOME") or env.get("USERPROFILE")
    return os.path.join(home or os.path.expanduser("~"), ".cargento")


def state_file_path(port: int, env: Mapping[str, str]) -> str:
    """The running dashboard's state file for *port*: ``cargento-<port>.json``."""
    return os.path.join(state_dir_path(env), f"cargento-{port}.json")
