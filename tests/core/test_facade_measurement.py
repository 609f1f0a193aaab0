"""The facade's calls for checks and measurement (doctor, servers, bench), in place of its parts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fixtures import PASSPHRASE
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.errors import NotInitialisedError
from veramem_desktop.core.recall import recipe

from veramem_desktop.memory import Memory

FACTS = ["The boiler was serviced in May.", "My sister lives in Porto.", "I keep bees on the roof."]


def test_unlock_refuses_a_home_without_a_store(tmp_path: Path) -> None:
    with pytest.raises(NotInitialisedError):
        Memory(tmp_path / "empty", passphrase=PASSPHRASE).unlock()


def test_a_whole_store_has_no_page_problems(mem: Any) -> None:
    mem.add("I moved to Lisbon in March.")
    assert mem.measuring.integrity_problems() == []


def test_load_embedder_names_the_model_the_store_embeds_with(mem: Any) -> None:
    assert mem.load_embedder() == (embedder_of(mem).name, embedder_of(mem).dim)
    assert mem.load_embedder()[0] == mem.embedder_name


def test_a_store_made_beside_shares_the_embedding_model(mem: Any, tmp_path: Path) -> None:
    other, _ = mem.create_beside(tmp_path / "beside", passphrase=PASSPHRASE, use_keyring=False)
    try:
        assert embedder_of(other) is embedder_of(mem)
        assert other.store_path != mem.store_path
    finally:
        other.close()


def test_prepared_facts_quote_their_own_messages_and_keep_the_ledger_whole(mem: Any) -> None:
    ids = mem.measuring.add_prepared(FACTS, user_id="bench")
    assert mem.reading.memory_count() == len(FACTS) == len(ids)
    for memory_id, text in zip(ids, FACTS, strict=True):
        detail = mem.reading.detail(memory_id)
        assert detail.item.text == text and detail.item.authority == "authorized"
        assert [(e.quote, e.episode.content) for e in detail.evidence] == [(text, text)]
    assert mem.verify().ok


def test_prepared_facts_without_messages_have_no_evidence_and_only_given_vectors(mem: Any) -> None:
    vectors = embedder_of(mem).embed(FACTS[:1])
    with_vector = mem.measuring.add_prepared(FACTS[:1], user_id="bench", vectors=vectors, with_messages=False)
    without = mem.measuring.add_prepared(FACTS[1:], user_id="bench", with_messages=False)
    assert all(mem.reading.detail(i).evidence == [] for i in with_vector + without)
    assert mem.episodes(user_id="bench") == []
    cache = engine_of(mem).caches["memory"]
    cache.refresh(store_of(mem))
    assert cache.vector(with_vector[0]) is not None
    assert all(cache.vector(i) is None for i in without)


def test_counting_statements_counts_inside_the_block_only(mem: Any) -> None:
    with mem.measuring.counting_statements() as seen:
        assert seen() == 0
        mem.measuring.add_prepared(FACTS, user_id="bench")
        inside = seen()
    assert inside > len(FACTS)
    mem.measuring.add_prepared(FACTS, user_id="bench")
    assert seen() == inside


def test_the_measurement_engine_ranks_as_search_does_and_writes_no_trace(mem: Any) -> None:
    mem.measuring.add_prepared(FACTS, user_id="bench", vectors=embedder_of(mem).embed(FACTS))
    found = [h.id for h in mem.search("where does my sister live?", user_id="bench").results]
    traces = mem.status()["counts"]["traces"]
    engine = mem.recall.search_engine()
    assert engine is not engine_of(mem) and engine.vectors is engine_of(mem).vectors
    again = engine.search("where does my sister live?", mem.caller("bench"), write_trace=False)
    assert [h.id for h in again.results] == found
    assert mem.status()["counts"]["traces"] == traces


def test_a_measurement_engine_with_a_recipe_keeps_its_own_caches(mem: Any) -> None:
    config = recipe("bm25", engine_of(mem).config)
    engine = mem.recall.search_engine(config)
    assert engine.config is config and engine.vectors is not engine_of(mem).vectors
    assert engine.hypothesise is None
