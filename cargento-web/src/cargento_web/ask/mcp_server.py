"""``cargento-ask``: the stdio MCP server a harness starts, exposing one tool, ``ask_operator``.

The tool asks the person at the Cargento dashboard a question with two to six short options
and returns the one they chose, or says that nobody answered. It registers the question with
the dashboard running on this machine (port ``CARGENTO_PORT``, default 4553) and polls it with
short requests (:mod:`cargento_web.ask.dashboard`); every failure is a prompt decline, never a
hang. The asking session is named from what the harness put in the environment
(:mod:`cargento_web.ask.attribution`), never guessed.

Usage (in a harness's MCP configuration)::

    cargento-ask [--port PORT]
    python -m cargento_web.ask.mcp_server [--port PORT]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from cargento.models import HarnessInfo
from pydantic import Field
from typing_extensions import TypedDict

from cargento_web.ask.attribution import Attribution, attribute, declared_infos
from cargento_web.ask.dashboard import Asking, ask
from cargento_web.ask.questions import (
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    MIN_TIMEOUT_S,
    OPTION_LIMIT,
    OPTIONS_MAX,
    OPTIONS_MIN,
    QUESTION_LIMIT,
)

__all__ = ["TOOL", "build_server", "main"]

TOOL = "ask_operator"
DEFAULT_PORT = 4553
DESCRIPTION = (
    "Ask the person watching the Cargento dashboard to choose between a few options, and wait "
    "for their choice. Use it when you need a decision only they can make and a short list of "
    f"choices covers it: {OPTIONS_MIN} to {OPTIONS_MAX} options, each a short label. The answer is always "
    "one of your own options, never free text. If nobody answers before the timeout, or the "
    "dashboard is not running, the result says so (outcome 'declined' or 'expired'): carry on "
    "without the choice or ask in the terminal instead."
)


class AskResult(TypedDict):
    """What ``ask_operator`` returns."""

    #: ``answered``, ``declined`` or ``expired``.
    outcome: str
    #: The chosen option, exactly as offered (``None`` unless answered).
    choice: str | None
    index: int | None
    #: Why there is no choice (``None`` when answered).
    reason: str | None


def build_server(port: int, env: Mapping[str, str], infos: Sequence[HarnessInfo] | None = None) -> Any:
    """The MCP server with its one tool, asking the dashboard on *port*; the asking session is
    named from *env* by the harness plugins' declarations (*infos*, the installed plugins'
    when omitted)."""
    from mcp.server.mcpserver import MCPServer

    who: Attribution = attribute(env, declared_infos() if infos is None else infos)
    server: Any = MCPServer(
        name="cargento-ask",
        instructions=(
            "ask_operator puts a multiple-choice question on the Cargento dashboard and returns "
            "the option the person there picked. It never returns free text."
        ),
    )

    @server.tool(name=TOOL, description=DESCRIPTION)  # type: ignore[untyped-decorator]
    async def ask_operator(
        question: Annotated[
            str, Field(min_length=1, max_length=QUESTION_LIMIT, description="The question, as plain text.")
        ],
        options: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=OPTION_LIMIT)]],
            Field(min_length=OPTIONS_MIN, max_length=OPTIONS_MAX, description="The choices, each a short label."),
        ],
        timeout_s: Annotated[
            int,
            Field(
                ge=MIN_TIMEOUT_S,
                le=MAX_TIMEOUT_S,
                description=f"Seconds to wait for an answer (default {DEFAULT_TIMEOUT_S}).",
            ),
        ] = DEFAULT_TIMEOUT_S,
    ) -> AskResult:
        outcome = await ask(
            Asking(
                question=question,
                options=tuple(options),
                timeout_s=float(timeout_s),
                harness=who.harness,
                session_id=who.session_id,
                project=who.project,
            ),
            port,
            env,
        )
        return AskResult(outcome=outcome.outcome, choice=outcome.choice, index=outcome.index, reason=outcome.reason)

    return server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cargento-ask", description="The ask_operator MCP server (stdio).")
    parser.add_argument("--port", type=int, default=None, help="the dashboard's port (default CARGENTO_PORT or 4553)")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    port = args.port
    if port is None:
        try:
            port = int(env.get("CARGENTO_PORT", "").strip() or DEFAULT_PORT)
        except ValueError:
            port = DEFAULT_PORT
    if not 1 <= port <= 65535:
        print(f"cargento-ask: {port} is not a port from 1 to 65535", file=sys.stderr)
        return 2
    # stdout carries the protocol: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    build_server(port, env).run("stdio")
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess tests
    sys.exit(main())
