"""What the bulk import stores, batch after batch: no message twice (even when a session's keys
left the cache), and every message and memory with its vectors when the import returns, the
vectors those texts get when embedded on their own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from import_support import chatgpt_conversation, write_json
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

FACTS = [
    "I moved to Lisbon last spring.",
    "My sister works as a nurse in town.",
    "We adopted a cat named Miso.",
    "I am learning to play the cello.",
    "Our team meets every Monday morning.",
    "I prefer green tea in the evening.",
    "My brother lives in Porto now.",
    "I started running on Fridays.",
]


def _open(home: Path, embedder: Any) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, embedder=embedder, config=config)
    return mem


def _export(tmp_path: Path, conversations: list[tuple[str, list[str]]]) -> Path:
    convs = [
        chatgpt_conversation(
            conv_id, f"chat {conv_id}", [("user", t) for t in turns], start=1_700_000_000 + i
        )
        for i, (conv_id, turns) in enumerate(conversations)
    ]
    return write_json(tmp_path / "export" / "conversations.json", convs)


def test_a_conversation_repeated_in_the_batch_after_it_is_stored_once_even_when_its_keys_left_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With one session cached, the repeat's session is read again from the store.
    monkeypatch.setattr("veramem_desktop.services.importer.KEY_CACHE_SESSIONS", 1)
    mem = _open(tmp_path / "home", HashEmbedder())
    try:
        export = _export(tmp_path, [("a", FACTS[:2]), ("b", FACTS[2:3]), ("a", FACTS[:2])])
        report = mem.import_history(export, batch_size=2)
        again = mem.import_history(export, batch_size=2)
        rows = store_of(mem).query("SELECT session_id, content FROM episodes ORDER BY session_id, turn_index")
    finally:
        mem.close()
    assert [tuple(r) for r in rows] == [
        ("chatgpt:a", FACTS[0]),
        ("chatgpt:a", FACTS[1]),
        ("chatgpt:b", FACTS[2]),
    ]
    assert (report.stored, report.already_stored) == (3, 2)
    assert (again.stored, again.already_stored) == (0, 5)


def test_every_message_and_memory_has_the_vector_of_its_text_embedded_alone_when_import_returns(
    tmp_path: Path,
) -> None:
    embedder = HashEmbedder()
    mem = _open(tmp_path / "home", embedder)
    try:
        export = _export(tmp_path, [("a", FACTS[:5]), ("b", FACTS[5:]), ("c", [FACTS[0], "Thanks!"])])
        report = mem.import_history(export, batch_size=3)
        store = store_of(mem)
        episodes = store.query(
            "SELECT e.role, e.source_name, e.content, v.vector FROM episodes e "
            "JOIN embeddings v ON v.owner_id = e.id AND v.owner_kind = 'episode'"
        )
        memories = store.query(
            "SELECT m.text, v.vector FROM memory_items m "
            "JOIN embeddings v ON v.owner_id = m.id AND v.owner_kind = 'memory'"
        )
        counts = store.query_one(
            "SELECT (SELECT count(*) FROM episodes), (SELECT count(*) FROM memory_items)"
        )
    finally:
        mem.close()
    from veramem_desktop.core.write.ingest import line_of

    assert report.stored == 10 and len(episodes) == counts[0] == 10
    assert counts[1] >= 8 and len(memories) == counts[1]
    for role, name, content, blob in episodes:
        alone = embedder.embed([line_of(role, name, content)])[0]
        assert np.array_equal(np.frombuffer(bytes(blob), dtype=np.float32), alone), content
    for text, blob in memories:
        assert np.array_equal(np.frombuffer(bytes(blob), dtype=np.float32), embedder.embed([text])[0]), text
