"""Driving ``veramem mcp`` with the MCP SDK's own stdio client, for the agent-surface tests."""

from __future__ import annotations

import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from support.fixtures import PASSPHRASE, VENV_BIN

VERAMEM = str(VENV_BIN / "veramem")
EXPECTED_TOOLS = {"add", "search", "answer", "feedback", "history", "forget"}
FENCE_OPEN = re.compile(r"^<<<RECALLED-DATA ([0-9a-f]{16})(?: [^\n]*)?>>>$", re.M)
FENCE_CLOSE = re.compile(r"^<<<END RECALLED-DATA ([0-9a-f]{16})>>>$", re.M)


def server_env(home: Path, **extra: str) -> dict[str, str]:
    return {
        "VERAMEM_HOME": str(home),
        "VERAMEM_PASSPHRASE": PASSPHRASE,
        "VERAMEM_NO_KEYRING": "1",
        "PATH": os.environ.get("PATH", ""),
        **extra,
    }


def session(home: Path, body: Callable[[ClientSession], Awaitable[Any]], **env: str) -> Any:
    """Start `veramem mcp` as a subprocess, open an MCP session, run ``body`` in it."""
    params = StdioServerParameters(command=VERAMEM, args=["mcp"], env=server_env(home, **env))

    async def main() -> Any:
        with open(os.devnull, "w") as errlog:  # the server's stderr (its logs) is not asserted here
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return await body(s)

    return anyio.run(main)


async def call(s: ClientSession, tool: str, **arguments: Any) -> str:
    result = await s.call_tool(tool, arguments)
    assert not result.is_error, f"{tool} failed: {result.content}"
    return "\n".join(c.text for c in result.content if c.type == "text")


async def call_error(s: ClientSession, tool: str, **arguments: Any) -> str:
    result = await s.call_tool(tool, arguments)
    assert result.is_error, f"{tool} should have failed: {result.content}"
    return "\n".join(c.text for c in result.content if c.type == "text")


def ids_in(text: str, prefix: str = "mem_") -> list[str]:
    return re.findall(rf"id=({prefix}[0-9A-Za-z]+)", text)
