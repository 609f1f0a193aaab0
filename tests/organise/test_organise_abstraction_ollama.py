"""A model's abstraction is checked before it is stored: through a real loopback server speaking the
Ollama API, a garbled reply is refused and reported, a sound one is stored (issue 18, part 6 b)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from organise_support import put
from support.fake_embedder import HashEmbedder
from support.fake_ollama import FakeOllama, FromRequest, JsonContent, running_fake_ollama
from support.fixtures import PASSPHRASE
from support.internals import embedder_of, store_of
from veramem_desktop.core.storage.ids import now_iso

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

GARBLED = {
    "name": "{slot_1} do I work as",
    "applies_when": "Someone asked: {slot_1} do I work as?",
    "inputs": ["{slot_1}: the place", "{slot_2}: the year"],
    "procedure": ["User moved to {slot_1} in {slot_2}24."],
    "caution": "Check the year.",
}
SOUND = {
    "name": "Answering where someone moved",
    "applies_when": "someone asks where they moved",
    "inputs": ["{slot_1}: the city", "{slot_2}: the year"],
    "procedure": ["Find the move: User moved to {slot_1} in {slot_2}."],
    "caution": "Ask if it changed.",
}


@pytest.fixture
def omem(isolated_home: Path) -> Iterator[tuple[Memory, FakeOllama]]:
    with running_fake_ollama() as server:
        config = Config()
        config.llm.backend = "ollama"
        config.llm.host = server.url
        config.llm.timeout_s = 2.0
        config.llm.retries = 0
        config.organise.linking = False
        mem, _ = Memory.create(
            isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config, embedder=HashEmbedder()
        )
        yield mem, server
        mem.close()


def _rated_trace(mem: Memory, query: str, cited: list[str]) -> None:
    with store_of(mem).atomic() as conn:
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids, cited_ids, reward, "
            "rewarded_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                f"tr_{abs(hash(query)):x}",
                "answer",
                now_iso(),
                "ann",
                query,
                "facts",
                json.dumps(cited),
                json.dumps(cited),
                1.0,
                now_iso(),
            ),
        )


@pytest.mark.parametrize(("reply", "stored"), [(GARBLED, False), (SOUND, True)])
def test_a_models_abstraction_is_stored_only_when_every_slot_replaces_a_whole_value(
    omem: tuple[Memory, FakeOllama], reply: dict[str, Any], stored: bool
) -> None:
    mem, server = omem
    moved = put(store_of(mem), embedder_of(mem), "Ann moved to Porto in 2024.", session=None, queue=False)
    _rated_trace(mem, "What do I work as?", [moved.id])
    server.script(FromRequest(lambda _request: JsonContent(reply)))
    report = mem.consolidate()
    distil = report.stages["distil"]
    assert report.reconciles and len(server.chat_requests) == 1
    if stored:
        assert distil.written == 1 and not distil.skipped
        assert "{slot_2}." in mem.get(distil.ids[0]).text
    else:
        assert distil.written == 0 and distil.skipped == {"garbled_abstraction": 1}
        [notice] = [n for n in report.notices if "abstraction was refused" in n]
        assert "'What'" in notice and "cuts a word or number" in notice
        assert store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE kind = 'experience'")[0] == 0
