"""An add commits its episodes, then what is derived from them, never embedding inside a write transaction;
it keeps the episodes when derivation fails, and never deadlocks with a background cache refresh."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.storage import index

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


def _memory(home: Path) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    return mem


def test_an_add_commits_its_episodes_then_what_is_derived_and_never_embeds_inside_a_write(
    isolated_home: Path,
) -> None:
    mem = _memory(isolated_home)
    try:
        mem.add("warming up the store", session_id="s")
        statements: list[str] = []
        depths: list[int] = []
        embed = embedder_of(mem).embed

        def watched(texts: Any) -> Any:
            depths.append(store_of(mem)._depth)  # an open write transaction holds the store's lock
            return embed(texts)

        embedder_of(mem).embed = watched  # type: ignore[method-assign]
        store_of(mem).conn.set_trace_callback(statements.append)
        result = mem.add(
            [
                {"role": "user", "content": "I keep bees on the roof."},
                {"role": "assistant", "content": "Bees on a roof sound lovely."},
            ],
            session_id="s",
        )
        store_of(mem).conn.set_trace_callback(None)
        assert result.added and len(result.episodes) == 2
        # the episodes are committed first (readers see them at once), then what is derived from them
        assert [s for s in statements if s.startswith(("BEGIN", "COMMIT"))] == [
            "BEGIN IMMEDIATE",
            "COMMIT",
        ] * 2
        # the model runs outside every write transaction, so readers in this process never wait for it
        assert depths and set(depths) == {0}
        assert mem.verify().ok
    finally:
        mem.close()


def test_a_derivation_that_fails_halfway_through_its_writes_keeps_the_episodes_and_nothing_else(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = _memory(isolated_home)
    try:

        def broken(*args: Any) -> None:  # fails after the memory's row and ledger entry were written
            raise RuntimeError("an indexing bug")

        monkeypatch.setattr(index, "index_memory", broken)
        result = mem.add("I keep bees on the roof.", session_id="s")
        assert not result.added and any("RuntimeError" in n for n in result.notices)
        assert [e.content for e in mem.episodes(limit=5)] == ["I keep bees on the roof."]
        assert (
            store_of(mem).query_one("SELECT count(*) FROM memory_items")[0] == 0
        )  # the savepoint undid them
        assert mem.verify().ok
    finally:
        mem.close()


def test_a_cache_refresh_waiting_for_the_store_never_holds_the_cache_from_a_writer(
    isolated_home: Path,
) -> None:
    """The linker's refresh and an add's derivation (which reads the cache inside its transaction) take
    the store's lock and the cache's in the same order, so neither can wait on the other forever."""
    mem = _memory(isolated_home)
    try:
        mem.add("I keep bees on the roof.", session_id="s")
        cache = engine_of(mem).caches["memory"]
        cache.refresh(store_of(mem))
        allowed = np.arange(len(cache), dtype=np.int64)
        mem.add("My sister lives in Porto.", session_id="s")  # the cache is stale again
        querying, writer_in = threading.Event(), threading.Event()
        real_query = store_of(mem).query

        def query(sql: str, params: Any = ()) -> Any:
            if threading.current_thread().name == "refresher" and not querying.is_set():
                querying.set()
                writer_in.wait(1.0)  # let the writer take the store, as it may at this moment
            return real_query(sql, params)

        store_of(mem).query = query  # type: ignore[method-assign]
        refresher = threading.Thread(
            target=cache.refresh, args=(store_of(mem),), name="refresher", daemon=True
        )
        refresher.start()
        assert querying.wait(5.0)
        with store_of(mem).atomic():
            writer_in.set()
            reader = threading.Thread(
                target=cache.top, args=(HashEmbedder().embed(["bees"])[0], allowed, 1), daemon=True
            )
            reader.start()
            reader.join(5.0)
            stuck = reader.is_alive()
        refresher.join(5.0)
        assert not stuck, "the writer waited on a cache held by a refresh that waited on the writer"
        assert not refresher.is_alive()
    finally:
        mem.close()
