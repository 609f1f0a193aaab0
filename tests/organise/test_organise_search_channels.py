"""The recall channels this feature adds: one hop along links, context-enriched memory vectors,
and a model's hypothetical answer — each behind the access predicate, each switchable."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from organise_support import DEVICE, link_all, open_store, put
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle.links import add_link
from veramem_desktop.core.recall import SearchConfig, SearchEngine
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.store import Store

E = HashEmbedder()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "s")
    yield s
    s.close()


def _ids(engine: SearchEngine, query: str, user: str = "ann", **kw: object) -> list[str]:
    hits = engine.search(query, Caller(user), route="facts", write_trace=False, **kw).results  # type: ignore[arg-type]
    return [h.id for h in hits if h.kind != "episode"]


def test_a_linked_memory_joins_the_results_and_never_one_the_caller_may_not_see(store: Store) -> None:
    seed = put(store, E, "Ann's sister Ines lives in Porto.")
    joined = put(store, E, "Ann visits her every Easter.", queue=False)
    private = put(store, E, "Bob keeps a diary about Easter.", user="bob", queue=False)
    with store.atomic() as conn:
        add_link(conn, seed.id, joined.id, "extends", 0.5, device=DEVICE)
        add_link(conn, seed.id, private.id, "related", 0.5, device=DEVICE)  # a forged cross-scope edge
    with_links = SearchEngine(store, E, SearchConfig(link_decay=0.3))
    without = SearchEngine(store, E, SearchConfig(link_decay=0.0))
    found = _ids(with_links, "Where does Ines live")
    assert found[0] == seed.id and joined.id in found and private.id not in found
    # by words alone only the seed is found; the hop adds the linked one (the dense channel ranks everything)
    _, words, _ = with_links.rank("Where does Ines live", Caller("ann"), route="facts", channels=("bm25",))
    _, hop, _ = with_links.rank(
        "Where does Ines live", Caller("ann"), route="facts", channels=("bm25", "links")
    )
    assert set(words) == {seed.id} and set(hop) == {seed.id, joined.id}
    _, off, _ = without.rank("Where does Ines live", Caller("ann"), route="facts", channels=("bm25", "links"))
    assert set(off) == {seed.id}
    hits = with_links.search("Where does Ines live", Caller("ann"), route="facts", write_trace=False).results
    mine = [h for h in hits if h.kind != "episode"]
    assert next(h for h in mine if h.id == joined.id).score < mine[0].score  # a hop ranks below its seed


def test_cold_memories_are_not_reached_through_links_unless_archived_ones_are_asked_for(store: Store) -> None:
    narrow = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    broad = put(store, E, "Ann plays tennis on Sundays with Tom at the club.")
    link_all(store, E)
    engine = SearchEngine(store, E)
    assert narrow.id not in _ids(engine, "tennis on Sundays") and broad.id in _ids(
        engine, "tennis on Sundays"
    )
    assert narrow.id in _ids(engine, "tennis on Sundays", include_archived=True)


def test_the_context_vector_finds_a_memory_by_the_words_around_its_source(store: Store) -> None:
    from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
    from veramem_desktop.core.write.ingest import store_episodes

    scope = Scope(user_id="ann", session_id="s1")
    store_episodes(
        store,
        E,
        [EpisodeInput(content="What did you cook for the lantern festival?", role="user")],
        scope,
        device=DEVICE,
    )
    answer = put(store, E, "Dumplings with chives.")  # the next turn of the same session
    decoy = put(store, E, "Chives grow on the balcony.", session="s2")
    link_all(store, E)
    assert store.query_one("SELECT count(*) FROM embeddings WHERE owner_kind = 'memory_ctx'")[0] == 2
    off = SearchEngine(store, E)
    _, scores, _ = off.rank("lantern festival food", Caller("ann"), route="facts", channels=("memory_ctx",))
    assert scores == {}  # off by default
    on = SearchEngine(
        store, E, replace(SearchConfig(), weights={**SearchConfig().weights, "memory_ctx": 1.0})
    )
    _, scores, ranks = on.rank(
        "lantern festival food", Caller("ann"), route="facts", channels=("memory_ctx",)
    )
    assert max(scores, key=lambda d: scores[d]) == answer.id and ranks[answer.id] == {"memory_ctx": 1}
    assert decoy.id in scores


def test_the_hypothetical_answer_channel_is_off_by_default_and_fails_open(store: Store) -> None:
    target = put(store, E, "The spare key is under the blue flowerpot.")
    put(store, E, "Ann likes hiking in the Alps.")
    asked: list[str] = []

    def hypothesise(question: str) -> str:
        asked.append(question)
        return "The spare key is under the blue flowerpot."

    engine = SearchEngine(store, E)
    engine.hypothesise = hypothesise
    _, _, ranks = engine.rank("where can I get in", Caller("ann"), route="facts")
    assert asked == [] and all("hyde" not in r for r in ranks.values())  # weight 0: no model call
    on = SearchEngine(store, E, replace(SearchConfig(), weights={**SearchConfig().weights, "hyde": 1.0}))
    on.hypothesise = hypothesise
    _, scores, ranks = on.rank("where can I get in", Caller("ann"), route="facts")
    assert asked == ["where can I get in"] and ranks[target.id].get("hyde") == 1

    def broken(question: str) -> str:
        raise RuntimeError("model down")

    on.hypothesise = broken
    _, scores, ranks = on.rank("spare key", Caller("ann"), route="facts")
    assert target.id in scores and all("hyde" not in r for r in ranks.values())
