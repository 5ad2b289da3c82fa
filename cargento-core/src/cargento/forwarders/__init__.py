"""The hook forwarders: small programs a harness runs, which hand lifecycle events to a
running dashboard over loopback.

* :mod:`cargento.forwarders.event_hook` (``cargento-event-hook <harness> [port]``)
* :mod:`cargento.forwarders.notify_hook` (``cargento-notify-hook [URL]``)
* :mod:`cargento.forwarders.statusline_hook` (``cargento-statusline-hook [port]``)

Each runs as ``python -m cargento.forwarders.<name>`` too, prints nothing and exits 0.
"""
