"""The relevance floor: a search says when nothing found is close to its question, on every surface, and
the floor only labels (no hit is dropped or moved).

The engine's part runs on the real embedding model (the floor is that model's); the surfaces are checked
with the fast hash embedder given a floor that no hit reaches, so each surface's wording is tested
without depending on where the model puts a given sentence.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE, init_store, run_cli
from veramem_desktop.core.recall import relevance

from veramem_desktop.memory import Memory

FACTS = [
    "I moved to Lisbon in March and I rent a flat near the river.",
    "I am allergic to peanuts, so I always check the labels.",
    "I work night shifts as a nurse at the children's hospital.",
    "My daughter Ana started learning the cello this autumn.",
    "I drive an old blue Volvo estate that my father gave me.",
]
ABSENT = "What is the melting point of tungsten in kelvin?"
PRESENT = "Which city did I move to?"


@pytest.fixture
def real_mem(isolated_home: Path) -> Any:
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False)
    for i, fact in enumerate(FACTS):
        mem.add(fact, session_id=f"s{i}")
    yield mem
    mem.close()


def test_a_question_about_nothing_stored_is_said_to_have_nothing_close(real_mem: Memory) -> None:
    absent = real_mem.search(ABSENT)
    assert absent.results, "the nearest hits are still returned"
    assert absent.nothing_close and not any(h.close for h in absent.results)
    present = real_mem.search(PRESENT)
    assert not present.nothing_close
    assert present.results[0].close and "Lisbon" in present.results[0].text
    assert all(h.closeness is not None for h in present.results)


def test_the_floor_labels_and_never_drops_or_reorders(
    real_mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    labelled = [(h.id, h.kind) for h in real_mem.search(ABSENT, k=10).results]
    monkeypatch.setattr(relevance, "FLOORS", {})
    unlabelled = real_mem.search(ABSENT, k=10)
    assert [(h.id, h.kind) for h in unlabelled.results] == labelled
    assert not unlabelled.nothing_close and all(h.close for h in unlabelled.results)


def test_a_model_with_no_calibrated_floor_claims_nothing(mem: Memory) -> None:
    mem.add(FACTS[0], session_id="s")
    result = mem.search(ABSENT)
    assert relevance.floor_for(HashEmbedder().name) is None
    assert not result.nothing_close and all(h.close for h in result.results)


@pytest.fixture
def far_mem(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The hash embedder's store, with a floor no hit reaches: every search has nothing close."""
    for i, fact in enumerate(FACTS):
        mem.add(fact, session_id=f"s{i}")
    monkeypatch.setitem(relevance.FLOORS, HashEmbedder().name, 1.01)
    return mem


def test_the_sdk_and_rest_carry_the_flag_on_the_result_and_each_hit(far_mem: Memory) -> None:
    from fastapi.testclient import TestClient

    from veramem_desktop.rest import create_app

    result = far_mem.search("Lisbon flat river")
    assert result.results and result.nothing_close and not any(h.close for h in result.results)
    data = result.to_dict()
    assert data["nothing_close"] is True and all(h["close"] is False for h in data["results"])
    token = "t" * 32
    with TestClient(create_app(far_mem, token), base_url="http://127.0.0.1:8765") as client:
        reply = client.post(
            "/v1/search", json={"query": "Lisbon flat river"}, headers={"Authorization": f"Bearer {token}"}
        )
    assert reply.status_code == 200
    body = reply.json()
    assert body["nothing_close"] is True and body["results"] and not body["results"][0]["close"]


def test_mcp_says_nothing_close_and_marks_each_hit(far_mem: Memory) -> None:
    from veramem_desktop.mcp_server import format_search

    text = format_search(far_mem.search("Lisbon flat river"))
    assert "nothing close" in text and "close=false" in text


@pytest.mark.anyio
async def test_the_terminal_app_says_nothing_close_above_the_nearest(far_mem: Memory) -> None:
    from support.pilot import settle
    from textual.widgets import Input, Static
    from veramem_desktop.tui.app import VeramemApp

    app = VeramemApp(lambda _passphrase: far_mem)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.screen.query_one("#search", Input).value = "Lisbon flat river"
        await settle(pilot)
        summary = str(app.screen.query_one("#memories-summary", Static).render())
    assert summary.startswith("Nothing close to “Lisbon flat river”") and "nearest" in summary


def test_the_command_line_says_nothing_close_and_json_marks_the_hits(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    for i, fact in enumerate(FACTS):
        assert run_cli("add", fact, "--session", f"s{i}", input="").returncode == 0
    human = run_cli("search", ABSENT, input="")
    assert human.returncode == 0 and "Nothing close" in human.stdout
    data = json.loads(run_cli("search", ABSENT, "--json", input="").stdout)
    assert data["nothing_close"] is True and data["results"] and not any(h["close"] for h in data["results"])
    near = run_cli("search", PRESENT, input="")
    assert "Nothing close" not in near.stdout
