"""Every recalled item says whether an agent may act on it, by one definition; agents' writes are theirs."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.client import Client
from support.fixtures import PASSPHRASE, init_store, run_cli
from support.mcp_stdio import call, session
from veramem_desktop.core.trust.action_gate import may_act

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.mcp_server import build_server

pytestmark = pytest.mark.e2e

_BLOCK = re.compile(r"<<<RECALLED-DATA [0-9a-f]{16} ([^\n]*)>>>")


def _fill(mem: Any) -> dict[str, str]:
    own = mem.add("I live in Porto.").added[0]["id"]
    tool = mem.add(
        [{"role": "tool", "name": "crm", "content": "Window seats are best on long flights."}]
    ).added[0]["id"]
    said = mem.add([{"role": "assistant", "content": "You are allergic to peanuts."}]).added[0]["id"]
    return {"own": own, "tool": tool, "assistant": said}


def test_search_hits_and_the_sdk_gate_agree_by_one_definition(mem: Any) -> None:
    ids = _fill(mem)
    hits = {
        h.id: h
        for q in ("where do I live", "window seats", "peanuts")
        for h in mem.search(q, route="facts").results
    }
    assert set(ids.values()) <= set(hits)
    for hit in hits.values():
        assert hit.actionable == may_act(hit.authority, hit.state)
        if hit.kind != "episode":
            assert hit.actionable == mem.curation.may_act_on(mem.get(hit.id)), hit.id
    assert hits[ids["own"]].actionable
    assert not hits[ids["tool"]].actionable and not hits[ids["assistant"]].actionable


def test_an_open_conflict_closes_the_gate_for_a_stored_memory(mem: Any) -> None:
    own = mem.add("I live in Porto.").added[0]["id"]
    claim = mem.add([{"role": "assistant", "content": "You live in Madrid."}]).added[0]["id"]
    item = mem.get(own)
    assert item.metadata["conflicts_with"] == [claim]
    assert not mem.curation.may_act_on(item)
    hit = next(h for h in mem.search("where do I live", route="facts").results if h.id == own)
    assert hit.state == "in_conflict" and not hit.actionable
    mem.review.reject(claim)  # a person settles it
    assert mem.curation.may_act_on(mem.get(own))


def test_answers_cited_items_and_mcp_blocks_say_may_act(mem: Any) -> None:
    ids = _fill(mem)
    result = mem.answer("Where do I live?")
    assert result.cited and all(isinstance(h.actionable, bool) for h in result.cited)
    assert ids["own"] in {h.id for h in result.cited if h.actionable}
    server = build_server(AgentAccess(mem, Identity("me", "cursor")), allow_forget=False)

    async def run() -> tuple[str, str, str]:
        async with Client(server) as client:
            tools = {t.name: t.description for t in (await client.list_tools()).tools}
            found = await client.call_tool("search", {"query": "window seats", "k": 10})
            said = await client.call_tool("answer", {"question": "Where do I live?"})
            texts = ["".join(getattr(c, "text", "") for c in r.content) for r in (found, said)]
            return tools["search"] + tools["answer"], texts[0], texts[1]

    described, found, said = asyncio.run(run())
    assert described.count("may_act=true") >= 2 and "ask the user" in described
    search_blocks = _BLOCK.findall(found)
    assert search_blocks and all(re.search(r"may_act=(true|false)", b) for b in search_blocks)
    assert any(f"id={ids['tool']}" in b and "may_act=false" in b for b in search_blocks)
    cited = [b for b in _BLOCK.findall(said) if "block=cited" in b]
    assert any(f"id={ids['own']}" in b and "may_act=true" in b for b in cited)


def test_rest_json_and_prompt_context_carry_actionable(mem: Any, make_server: Any) -> None:
    ids = _fill(mem)
    live = make_server(mem, agent_id="cursor")
    with live.client(headers=live.auth) as client:
        found = client.post("/v1/search", json={"query": "window seats"}).json()
        said = client.post("/v1/answer", json={"question": "Where do I live?"}).json()
        added = client.post("/v1/add", json={"messages": "My hotel room is 4312.", "expires_in": "2d"})
        bad = client.post("/v1/add", json={"messages": "Hi.", "until": "2001-01-01"})
    assert all("actionable" in h for h in found["results"]) and "may_act=" in found["prompt_context"]
    assert any(h["id"] == ids["tool"] and h["actionable"] is False for h in found["results"])
    assert any(h["id"] == ids["own"] and h["actionable"] is True for h in said["cited"])
    assert added.status_code == 200, added.text
    mid = added.json()["added"][0]["id"]
    assert mem.get(mid).metadata["expires_at"] > datetime.now(UTC).isoformat()[:10]
    assert mem.reading.ledger_entries(target_id=mid)[0].actor == {
        "kind": "agent",
        "id": "cursor",
        "channel": "rest",
    }
    assert 400 <= bad.status_code < 500 and "future" in bad.text


def test_the_ledgers_actor_for_an_mcp_add_is_the_agent(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)

    async def body(s: ClientSession) -> str:
        return await call(
            s, "add", messages=[{"role": "user", "content": "I moved to Lisbon in March."}], expires_in="7d"
        )

    out = session(isolated_home, body, VERAMEM_AGENT_ID="cursor")
    assert "Lisbon" in out
    from veramem_desktop.memory import Memory

    with Memory(isolated_home, passphrase=PASSPHRASE) as mem:
        entries = mem.reading.ledger_entries()
        episode = [e for e in entries if e.op == "episode.add"][0]
        memory = [e for e in entries if e.op == "memory.add"][0]
        assert episode.actor == {"kind": "agent", "id": "cursor", "channel": "mcp", "relayed": "user"}
        assert memory.actor == {"kind": "agent", "id": "cursor", "channel": "mcp"}
        assert mem.get(memory.target_id).metadata["expires_at"]
        assert mem.verify().ok
    history = run_cli("history", memory.target_id)
    assert "by agent cursor via mcp" in history.stdout
