"""What agents get over MCP (the real ``veramem mcp`` over stdio) and REST (uvicorn on loopback) agrees
with the memory: rejected values never reach them, not through search, answers, history or episode
lists; raw messages are labelled "raw", not "verified"; each hit says its state."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from support.fixtures import PASSPHRASE
from support.keyless_model import KeylessModel
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
    mem.review.reject(wrong, "never lived there")
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


@pytest.fixture
def missed(isolated_home: Path) -> dict[str, str]:
    """Leuven, then a move to Ghent said in words the write path did not key (the model drops every key):
    both memories are stored as current, and only recall's safety net knows the first was replaced."""
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config, llm=KeylessModel()
    )
    ids = {}
    for name, text, day in (
        ("old", "I live in Leuven, near the old brewery.", "2023-01-10"),
        ("new", "We finally moved into a flat in Ghent!", "2024-06-01"),
    ):
        done = mem.add([{"role": "user", "content": text, "time": f"{day}T12:00:00+00:00"}])
        ids[name] = done.added[0]["id"]
    mem.close()
    return ids


QUESTION = "where do I live?"


def _tui_state(mem: Memory, memory_id: str) -> str:
    """The State cell the terminal app's search shows for ``memory_id`` (its table, 120 wide)."""
    import asyncio

    from support.pilot import settle
    from textual.widgets import Input
    from veramem_desktop.tui.app import VeramemApp
    from veramem_desktop.tui.widgets.memory_table import MemoryTable

    async def run() -> str:
        app = VeramemApp(lambda _passphrase: mem)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            field = app.screen.query_one("#search", Input)
            field.focus()
            field.value = QUESTION
            await settle(pilot)
            table = app.screen.query_one(MemoryTable)
            return str(table.get_row(memory_id)[-1])

    return asyncio.run(run())


def _off_the_page(run: Any) -> Any:
    """``run()`` in a thread of its own: the browser's driver holds an event loop in this one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


def _page_state(live: Any, browser: Any, memory_id: str) -> tuple[str, str | None]:
    """The state tag the web page shows on ``memory_id``'s search result, and its title."""
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.get_by_test_id("token").fill(live.token)
    page.get_by_test_id("login-button").click()
    page.get_by_test_id("query").fill(QUESTION)
    page.get_by_test_id("search-button").click()
    result = page.locator(f"[data-testid=result][data-id='{memory_id}']")
    result.wait_for()
    tag = result.get_by_test_id("state")
    shown = (tag.inner_text(), tag.get_attribute("title"))
    page.close()
    return shown


def test_a_probably_superseded_hit_reads_the_same_on_cli_sdk_mcp_rest_tui_and_web_page(
    isolated_home: Path, missed: dict[str, str], make_server: Any, browser: Any
) -> None:
    from click.testing import CliRunner

    from veramem_desktop.cli import cli

    old, new = missed["old"], missed["new"]

    async def body(s: ClientSession) -> str:
        return await call(s, "search", query=QUESTION, k=10)

    mcp_found = _off_the_page(lambda: session(isolated_home, body))
    cli_text = CliRunner().invoke(cli, ["search", QUESTION], catch_exceptions=False).output
    cli_json = CliRunner().invoke(cli, ["search", QUESTION, "--json"], catch_exceptions=False).output
    mem = Memory(isolated_home, passphrase=PASSPHRASE)
    sdk = {h.id: h for h in mem.search(QUESTION).results}
    live = make_server(mem)
    with live.client(headers=live.auth) as client:
        rest = {
            h["id"]: h for h in client.post("/v1/search", json={"query": QUESTION, "k": 10}).json()["results"]
        }
    page_tag, page_title = _page_state(live, browser, old)
    tui_tag = _off_the_page(lambda: _tui_state(mem, old))
    mem.close()

    assert ids_in(mcp_found)[0] == new and next(iter(sdk)) == new and next(iter(rest)) == new
    assert sdk[old].state == rest[old]["state"] == "probably_superseded"
    assert sdk[old].superseded_by == rest[old]["superseded_by"] == new
    header = re.search(rf"\bid={old}\b[^>]*>>>", mcp_found)
    assert header and "state=probably_superseded" in header[0] and f"superseded_by={new}" in header[0]
    assert (
        json.loads(cli_json)["results"][[h["id"] for h in json.loads(cli_json)["results"]].index(old)][
            "state"
        ]
        == "probably_superseded"
    )
    cli_line = next(line for line in cli_text.splitlines() if old in line)
    assert f"probably superseded by {new}" in cli_line
    assert tui_tag == page_tag == "probably superseded"
    assert page_title == f"probably replaced by {new}"
