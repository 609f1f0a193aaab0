"""What agents get over MCP (the real ``veramem mcp`` over stdio) and REST (uvicorn on loopback) agrees
with the memory: rejected values never reach them, not through search, answers, history or episode
lists; raw messages are labelled "raw", not "verified"; each hit says its state."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from support.fixtures import PASSPHRASE
from support.mcp_stdio import call, ids_in, session

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

pytestmark = pytest.mark.e2e


@pytest.fixture
def corrected(isolated_home: Path) -> dict[str, str]:
    """Munich, replaced by Porlamo, which the person rejects; then a tool restates Porlamo."""
    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    munich = mem.add("I live in Munich.").added[0]["id"]
    wrong = mem.add("I live in Porlamo.").updated[0]["id"]
    mem.reject(wrong, "never lived there")
    mem.add([{"role": "tool", "name": "crm", "content": "The user lives in Porlamo."}])
    mem.close()
    return {"munich": munich, "wrong": wrong}


def test_mcp_never_returns_a_rejected_value_and_labels_messages_raw(
    isolated_home: Path, corrected: dict[str, str]
) -> None:
    async def body(s: ClientSession) -> dict[str, str]:
        found = await call(s, "search", query="where do I live Porlamo", k=20)
        said = await call(s, "answer", question="Where do I live?")
        history = await call(s, "history", memory_id=corrected["munich"])
        return {"found": found, "said": said, "history": history}

    out = session(isolated_home, body)
    for name, text in out.items():
        assert "Porlamo" not in text, name
    assert "Munich" in out["said"]
    assert not re.search(r"kind=episode[^>]*trust=verified", out["found"])
    assert re.search(r"kind=episode[^>]*trust=raw", out["found"])
    first = ids_in(out["found"])[0]
    assert (
        first == corrected["munich"] and "state=current" in out["found"].split(first, 1)[1].split(">>>", 1)[0]
    )


def test_rest_never_returns_a_rejected_value_in_search_answer_history_or_episodes(
    isolated_home: Path, corrected: dict[str, str], make_server: Any
) -> None:
    mem = Memory(isolated_home, passphrase=PASSPHRASE)
    live = make_server(mem)
    with live.client(headers=live.auth) as client:
        found = client.post("/v1/search", json={"query": "where do I live Porlamo", "k": 20})
        said = client.post("/v1/answer", json={"question": "Where do I live?"})
        history = client.get(f"/v1/memories/{corrected['munich']}/history")
        episodes = client.get("/v1/episodes", params={"limit": 100})
        rejected = client.get(f"/v1/memories/{corrected['wrong']}")
    mem.close()
    for response in (found, said, history, episodes):
        assert response.status_code == 200 and "Porlamo" not in response.text
    assert rejected.status_code == 404
    hits = found.json()["results"]
    assert hits[0]["id"] == corrected["munich"] and hits[0]["state"] == "current"
    assert {h["trust"] for h in hits if h["kind"] == "episode"} == {"raw"}
    assert all("superseded_by" in h and "derived" in h and "actionable" in h for h in hits)


@pytest.fixture
def mistaken(isolated_home: Path) -> dict[str, str]:
    """Lisbon, then the person says that was a mistake: Porto, not Lisbon."""
    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    lisbon = mem.add("I moved to Lisbon in March 2024.").added[0]["id"]
    porto = mem.add("Actually I moved to Porto, not Lisbon.").updated[0]["id"]
    mem.close()
    return {"lisbon": lisbon, "porto": porto}


def test_a_corrected_mistake_reads_the_same_on_sdk_mcp_and_rest_and_is_never_a_former_value(
    isolated_home: Path, mistaken: dict[str, str], make_server: Any
) -> None:
    async def body(s: ClientSession) -> dict[str, str]:
        return {
            "found": await call(s, "search", query="where did I move?", k=10),
            "said": await call(s, "answer", question="Where did I move?"),
        }

    mcp = session(isolated_home, body)
    mem = Memory(isolated_home, passphrase=PASSPHRASE)
    sdk_hits = mem.search("where did I move?").results
    sdk_said = mem.answer("Where did I move?").text
    live = make_server(mem)
    with live.client(headers=live.auth) as client:
        rest_hits = client.post("/v1/search", json={"query": "where did I move?", "k": 10}).json()["results"]
        rest_said = client.post("/v1/answer", json={"question": "Where did I move?"}).json()
    mem.close()
    assert sdk_hits[0].id == rest_hits[0]["id"] == ids_in(mcp["found"])[0] == mistaken["porto"]
    assert sdk_hits[0].corrects == rest_hits[0]["corrects"] == "Lisbon"
    assert "corrects=Lisbon" in mcp["found"].split(mistaken["porto"], 1)[1].split(">>>", 1)[0]
    for said in (sdk_said, rest_said["answer"], mcp["said"]):
        assert "Porto" in said and "not Lisbon" in said
        assert "before that" not in said  # a mistake never held: it is no former value
