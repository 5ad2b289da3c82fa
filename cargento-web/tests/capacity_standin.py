"""The capacity feature with its vendor endpoints stood in for: the real Capacity extension,
its credential read from a Claude credentials file under the test's home, and every request
answered by :data:`HANDLER` through httpx's MockTransport, so no request leaves the machine.
A test sets :data:`HANDLER` and reads :data:`REQUESTS` and :data:`READS`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import httpx
from cargento_web.capacity.credentials import Credential, CredentialProblem, claude_credential
from cargento_web.capacity.extension import Capacity
from cargento_web.capacity.poller import Source
from cargento_web.capacity.vendors import claude_vendor
from cargento_web.extensions import ExtensionContext

HANDLER: list[Callable[[httpx.Request], httpx.Response]] = []
REQUESTS: list[httpx.Request] = []
READS: list[datetime] = []


def _answer(request: httpx.Request) -> httpx.Response:
    REQUESTS.append(request)
    return HANDLER[-1](request)


def create(context: ExtensionContext) -> Capacity:
    builder = context.builder

    def credential(now: datetime) -> Credential | CredentialProblem:
        READS.append(now)
        return claude_credential(env=builder.env, home=builder.home, platform="linux", now=now)

    return Capacity(
        context,
        sources=[Source(vendor=claude_vendor("cargento/test"), credential=credential)],
        client=lambda: httpx.Client(transport=httpx.MockTransport(_answer)),
    )
