"""The reproduction from issue 16 through a real MCP client: an agent's "this did not help"
(four `answer` + `feedback -1` over stdio), then `veramem consolidate`, leaves the person's
own authorized fact active; only its ranking may drop."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from support.fixtures import init_store, run_cli
from support.mcp_stdio import call, session

pytestmark = pytest.mark.e2e


def _trace(text: str) -> str:
    found = re.search(r"trace_id: ([A-Za-z0-9_]+)", text)
    assert found, text
    return found.group(1)


def test_agent_feedback_over_mcp_then_consolidate_keeps_the_users_authorized_fact(
    isolated_home: Path,
) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)

    async def body(s: ClientSession) -> dict[str, Any]:
        added = await call(
            s,
            "add",
            messages=[
                {"role": "user", "content": "My blood type is O negative."},
                {"role": "user", "content": "My favourite colour is green."},
            ],
        )
        rewards = []
        for _ in range(4):  # a success elsewhere first, so each failure counts in full against the mean
            good = await call(s, "answer", question="What is my favourite colour?")
            await call(s, "feedback", trace_id=_trace(good), reward=1.0)
            bad = await call(s, "answer", question="What is my blood type?")
            rewards.append(json.loads(await call(s, "feedback", trace_id=_trace(bad), reward=-1.0)))
        return {"added": added, "rewards": rewards}

    out = session(isolated_home, body)
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
