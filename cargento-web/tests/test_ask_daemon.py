"""The ask lane against a real ``cargento --daemon``: the state file the server writes, its
capability, its feature list, and ``cargento --stop`` declining a question mid-wait."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.timeout(120)


def _sibling(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"cargento_web_tests_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LC = _sibling("test_lifecycle")
env = _LC.env
daemons = _LC.daemons


def _questions(port: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = httpx.get(f"http://127.0.0.1:{port}/api/data", timeout=5).json()["questions"]
    return found


def test_a_real_daemon_answers_and_its_stop_declines(env: dict[str, str], daemons: list[int]) -> None:
    port = _LC.free_port()
    daemons.append(port)
    started = _LC.run(env, "--port", str(port), "--daemon")
    assert started.returncode == 0, started.stderr
    asker_env = {**env, "CARGENTO_PORT": str(port)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "cargento_web.ask.mcp_server"], env=asker_env)

    async def wait_for_one() -> dict[str, Any]:
        deadline = time.monotonic() + 15
        while True:
            found = await asyncio.to_thread(_questions, port)
            if found:
                return found[0]
            assert time.monotonic() < deadline, "no question reached the daemon's /api/data"
            await asyncio.sleep(0.1)

    async def go() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            first = asyncio.create_task(
                session.call_tool("ask_operator", {"question": "Ship?", "options": ["Ship", "Hold"]})
            )
            question = await wait_for_one()
            answered = await asyncio.to_thread(
                httpx.post,
                f"http://127.0.0.1:{port}/api/ask/{question['id']}/answer",
                content=json.dumps({"index": 0}),
                headers={"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"},
            )
            assert answered.status_code == 200
            assert (await first).structured_content == {
                "outcome": "answered",
                "choice": "Ship",
                "index": 0,
                "reason": None,
            }

            second = asyncio.create_task(
                session.call_tool("ask_operator", {"question": "Still there?", "options": ["Yes", "No"]})
            )
            await wait_for_one()
            stopping = time.monotonic()
            stopped = await asyncio.to_thread(_LC.run, env, "--port", str(port), "--stop")
            assert stopped.returncode == 0, stopped.stderr
            result = (await asyncio.wait_for(second, 15)).structured_content
            assert time.monotonic() - stopping < 15
            assert result is not None and result["outcome"] == "declined" and result["choice"] is None
            assert "stopped" in result["reason"]

    asyncio.run(go())
