"""The capacity feature with its vendor endpoint stood in for: the real Capacity extension,
Claude Code's endpoint and reader as its plugin declares them, the login read from the Claude
credentials file under the test's home, and every request answered by :data:`HANDLER` through
httpx's MockTransport, so no request leaves the machine. A test sets :data:`HANDLER` and reads
:data:`REQUESTS` and :data:`READS`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import httpx
from cargento.plugins import load_registry
from cargento_harness_claude import plugin as claude
from cargento_web.capacity.credentials import Credential, CredentialProblem, read_credential
from cargento_web.capacity.extension import Capacity, quota_reader
from cargento_web.capacity.poller import Source
from cargento_web.capacity.vendors import Vendor
from cargento_web.extensions import ExtensionContext

HANDLER: list[Callable[[httpx.Request], httpx.Response]] = []
REQUESTS: list[httpx.Request] = []
READS: list[datetime] = []
REGISTRY = load_registry(entry_points=False, extra=[("claude", claude)])


def _answer(request: httpx.Request) -> httpx.Response:
    REQUESTS.append(request)
    return HANDLER[-1](request)


def create(context: ExtensionContext) -> Capacity:
    builder = context.builder
    endpoint = claude.quota_endpoint(env=builder.env, home=builder.home, platform="linux")
    assert endpoint is not None

    def credential(now: datetime) -> Credential | CredentialProblem:
        READS.append(now)
        return read_credential(endpoint, label="Claude Code", platform="linux", now=now)

    vendor = Vendor(
        harness="claude",
        label="Claude Code",
        endpoint=endpoint,
        read=quota_reader(REGISTRY, "claude", "reply"),
        user_agent="cargento/test",
    )
    return Capacity(
        context,
        sources=[Source(vendor=vendor, credential=credential)],
        client=lambda: httpx.Client(transport=httpx.MockTransport(_answer)),
    )
