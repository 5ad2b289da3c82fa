"""What ``cargento hooks install/remove/show`` writes for a harness: its hook targets.

A harness plugin implements :func:`cargento.hookspecs.hook_targets` and returns one
:class:`HookTarget` per place Cargento's hooks can go, resolving the path with its own
knowledge of where the harness keeps its settings (its relocation variable, a per-project
directory). Core's one settings-merge engine (:mod:`cargento.events.settings`) then installs,
removes and shows every target the same way, in one of three styles:

* ``settings``: hook handlers merged into a JSON settings file's ``hooks`` object
  (``{event: [{"matcher": "", "hooks": [handler]}]}``), each running one of Cargento's
  forwarders (:mod:`cargento.forwarders`);
* ``status_line``: the file's single ``statusLine`` command set to a forwarder;
* ``adapter_file``: a file the plugin bundles (a JavaScript plugin or extension) copied to
  *path*.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import attrs

from cargento.sharedmethods import shared_methods

__all__ = ["HOOK_TIMEOUT_S", "HookStyle", "HookTarget", "PortForm"]

HookStyle = Literal["settings", "status_line", "adapter_file"]
#: How a ``--port`` other than the default reaches the forwarder: as its last argument, or
#: as the ``/api/notify`` URL (the notify forwarder's one argument).
PortForm = Literal["argument", "notify_url"]
#: A hook's own time limit, in seconds (loopback answers in milliseconds).
HOOK_TIMEOUT_S = 10


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class HookTarget:
    """One place ``cargento hooks`` can install Cargento's hooks for a harness."""

    #: The target's name on the command line (``claude``, ``claude-events``); unique across
    #: every loaded plugin. Usually the harness key.
    name: str
    style: HookStyle
    #: The file written. ``None`` when it cannot be resolved here; *unavailable* says why.
    path: Path | None
    #: One line for ``cargento hooks --help`` and the documentation.
    description: str = ""
    #: Why the target cannot be installed now (``"opencode is installed per project: pass
    #: --project DIR"``); shown by ``show`` and refused by ``install``/``remove``.
    unavailable: str | None = None
    #: ``settings``/``status_line``: the module under :mod:`cargento.forwarders` the handler
    #: runs (``event_hook``, ``notify_hook``, ``statusline_hook``).
    forwarder: str = "event_hook"
    #: The forwarder's arguments before the port (``("claude",)``).
    arguments: tuple[str, ...] = ()
    port_form: PortForm = "argument"
    #: ``settings``: the harness events a handler is registered for, in the file's order.
    events: tuple[str, ...] = ()
    #: ``settings``: write an ``"async"`` key on every handler (``true`` except for the
    #: events in *sync_events*). ``False`` writes no key (the harness awaits every hook).
    asynchronous: bool = True
    sync_events: tuple[str, ...] = ()
    #: ``settings``: the handler's ``"timeout"`` in seconds; ``None`` writes none.
    timeout: int | None = HOOK_TIMEOUT_S
    #: ``adapter_file``: the bundled file's text, copied byte for byte.
    adapter_text: str | None = None
