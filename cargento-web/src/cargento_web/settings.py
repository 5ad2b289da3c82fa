"""What one running dashboard needs to know about itself."""

from __future__ import annotations

from datetime import datetime

import attrs
from cargento.sharedmethods import shared_methods

__all__ = ["Settings"]


@shared_methods
@attrs.frozen(kw_only=True, repr=False, eq=False)
class Settings:
    """The identity and tuning of one served dashboard.

    ``port`` is the port actually bound (never 0 once serving), so the Host and Origin checks
    and ``/api/health`` name the real address.
    """

    host: str = "127.0.0.1"
    port: int = 4553
    pid: int = 0
    started_at: datetime | None = None
    version: str = ""
    #: ``cargento --all``: the page shows every session ever unless the URL says otherwise.
    all_sessions: bool = False
    #: The board is evaluated at a fixed moment (``--as-of``): marked in the board document.
    as_of: bool = False
    #: The least time between two store-driven rebuilds, in seconds: a change after a quiet
    #: while is built at once, the rest of a burst is coalesced into one rebuild per interval.
    debounce_s: float = 0.02
    #: The slow timer for clock-driven changes only (a turn end after 90 s of quiet, a gate
    #: that ages in); store changes are picked up by the file watcher.
    rescan_s: float = 10.0
    #: How often a live board rediscovers every store even though the file watcher reported
    #: nothing: the stat-sweep fallback for filesystems without change events.
    full_sweep_s: float = 120.0
    #: How often an open stream is pinged; the page calls a refresh missed when neither a
    #: ping nor a board arrives inside this interval (and says "stalled" after two).
    heartbeat_s: float = 5.0
    #: Watch the stores' roots with watchfiles (switched off only in tests of the timer).
    watch: bool = True
    #: Log file of a detached server, published in the state file.
    log: str | None = None

    @property
    def url(self) -> str:
        """The address to open: loopback even when bound to every interface."""
        return f"http://127.0.0.1:{self.port}/"

    def allowed_hosts(self) -> frozenset[str]:
        """Host header values naming this server (DNS-rebinding defence)."""
        names = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        if self.port == 80:
            names |= {"127.0.0.1", "localhost"}
        return frozenset(names)

    def allowed_origins(self) -> frozenset[str]:
        """Origins whose pages may change state here: this dashboard's own loopback pages."""
        return frozenset(f"http://{h}" for h in self.allowed_hosts())
