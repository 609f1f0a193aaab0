"""The reproduction from issue 16 through a real MCP client: an agent's "this did not help"
(four `answer` + `feedback -1` over stdio), then `veramem consolidate`, leaves the person's
own authorized fact active; only its ranking may drop."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.fixtures import PASSPHRASE, VENV_BIN, run_cli

pytestmark = pytest.mark.e2e


def _session(home: Path, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    env = {"VERAMEM_HOME": str(home), "VERAMEM_PASSPHRASE": PASSPHRASE, "VERAMEM_NO_KEYRING": "1",
           "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=str(VENV_BIN / "veramem"), args=["mcp"], env=env)

    async def main() -> Any:
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                return await body(s)

    return anyio.run(main)


async def _call(s: ClientSession, tool: str, **arguments: Any) -> str:
    result = await s.call_tool(tool, arguments)
    assert not result.is_error, f"{tool} failed: {result.content}"
    return "\n".join(c.text for c in result.content if c.type == "text")


def _trace(text: str) -> str:
    found = re.search(r"trace_id: ([A-Za-z0-9_]+)", text)
    assert found, text
    return found.group(1)


def test_agent_feedback_over_mcp_then_consolidate_keeps_the_users_authorized_fact(isolated_home: Path) -> None:
    assert run_cli("init").returncode == 0

    async def body(s: ClientSession) -> dict[str, Any]:
        added = await _call(s, "add", messages=[{"role": "user", "content": "My blood type is O negative."},
                                                {"role": "user", "content": "My favourite colour is green."}])
        rewards = []
        for _ in range(4):  # a success elsewhere first, so each failure counts in full against the mean
            good = await _call(s, "answer", question="What is my favourite colour?")
            await _call(s, "feedback", trace_id=_trace(good), reward=1.0)
            bad = await _call(s, "answer", question="What is my blood type?")
            rewards.append(json.loads(await _call(s, "feedback", trace_id=_trace(bad), reward=-1.0)))
        return {"added": added, "rewards": rewards}

    out = _session(isolated_home, body)
    blood = [c["id"] for c in out["rewards"][0]["credited"]]
    assert blood and all(r["by"] == "agent" and r["advantage"] < -0.5 for r in out["rewards"])
    target = blood[0]
    report = run_cli("consolidate", "--json")
    assert report.returncode == 0, report.stderr
    archive = json.loads(report.stdout)["stages"]["archive"]
    # found for its low utility, kept because only an agent said so
    assert target not in archive["ids"] and archive["skipped"].get("feedback_below_authority", 0) >= 1
    item = json.loads(run_cli("history", target, "--json").stdout)["item"]
    assert (item["authority"], item["status"], item["uses"]) == ("authorized", "active", 4)
    assert item["utility"] < 0.3  # its ranking did drop
    assert run_cli("verify").returncode == 0
