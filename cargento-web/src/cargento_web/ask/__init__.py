"""The ask lane: a session asks the reader a question and gets back one of its own options.

The server half is :class:`cargento_web.ask.lane.AskLane` (routes, the ``questions`` key of
``/api/data``, notification, expiry, release on stop); the agent half is the stdio MCP server
``cargento-ask`` (:mod:`cargento_web.ask.mcp_server`), which the harness starts and which talks
to the running dashboard over loopback (:mod:`cargento_web.ask.dashboard`). ``--no-ask`` turns
the lane off: its routes refuse and the page offers no control. Questions live in memory only,
so the lane keeps no store.
"""

from __future__ import annotations

from cargento_web.ask.lane import AskLane
from cargento_web.extensions import ExtensionContext

__all__ = ["AskLane", "create"]


class _DemoLane(AskLane):
    """The lane with the demo's asker running beside it."""

    def __init__(self, context: ExtensionContext) -> None:
        super().__init__(context)
        from cargento_web.ask.demo import DemoAsker  # only under --demo

        self.asker = DemoAsker(
            self.questions, latest_board=context.latest_board, raised=context.changed, clock=self.clock
        )
        self.asker.start()

    def close(self) -> None:
        self.asker.stop()
        super().close()


def create(context: ExtensionContext) -> AskLane:
    """The lane of this run; under ``--no-ask`` one whose routes refuse."""
    if context.options.no_ask:
        return AskLane(context, enabled=False)
    if context.demo:
        return _DemoLane(context)
    return AskLane(context)
