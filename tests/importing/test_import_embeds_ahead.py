"""The bulk import embeds the next batch's lines on a worker thread while it writes the current
batch, and that changes nothing in what is stored: no message twice, every message and memory with
its vectors when the import returns, the vectors those texts get when embedded on their own."""

from __future__ import annotations

import threading
from collections.abc import Sequence
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


class GatedEmbedder:
    """The hash embedder, noting which thread asks. The first embedding asked for by the writing
    thread (the memories of the first batch) waits until the worker has started on the second
    batch's lines, and records whether that happened within a few seconds."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.armed = False
        self.worker_calls = 0
        self.second_batch_started = threading.Event()
        self.writer_saw_second_batch: bool | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Any:
        if self.armed:
            if threading.current_thread().name.startswith("import-embed"):
                with self._lock:
                    self.worker_calls += 1
                    if self.worker_calls >= 2:
                        self.second_batch_started.set()
            elif self.writer_saw_second_batch is None:
                self.writer_saw_second_batch = self.second_batch_started.wait(timeout=5)
        return self.inner.embed(texts)


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


def test_the_next_batch_is_embedded_while_the_current_one_is_written(tmp_path: Path) -> None:
    embedder = GatedEmbedder()
    mem = _open(tmp_path / "home", embedder)
    try:
        export = _export(tmp_path, [("a", FACTS[:4]), ("b", FACTS[4:])])
        embedder.armed = True
        report = mem.import_history(export, batch_size=2)
    finally:
        mem.close()
    assert report.stored == 8
    assert embedder.writer_saw_second_batch is True
    assert embedder.worker_calls == 4  # each batch's lines, embedded ahead, once


def test_a_conversation_repeated_in_the_batch_after_it_is_stored_once_even_when_its_keys_left_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With one session cached, the repeat's session is read again from the store while the batch
    # that holds its first copy is still being embedded ahead, not written yet.
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
