"""Forget reaches the link graph: links go, a fused memory goes with any of its evidence, and
what it stood for comes back from cold storage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from organise_support import DEVICE, link_all, links, open_store, put, status
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle import forget
from veramem_desktop.core.lifecycle.consolidation import consolidate
from veramem_desktop.core.lifecycle.links import enqueue
from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

E = HashEmbedder()
DAYS = ["heavy rain", "fresh snowfall", "a broken boot", "a lost map", "wild ibex"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "s")
    yield s
    s.close()


def _fuse(store: Store) -> tuple[str, list[str]]:
    sources = [
        put(store, E, f"The hiking trip in the Alps on day {i} brought {w}.").id
        for i, w in enumerate(DAYS, 1)
    ]
    report = consolidate(store, E, RuleBasedLLM(), VectorCache("memory", E.name, E.dim), device=DEVICE)
    [fused] = report.stages["fuse"].ids
    return fused, sources


def test_forgetting_a_memory_erases_its_links_and_its_place_in_the_queue(store: Store) -> None:
    a = put(store, E, "Ann plays tennis on Sundays.")
    b = put(store, E, "Ann plays squash on Mondays.")
    c = put(store, E, "Ann plays squash on Fridays.")
    link_all(store, E)
    assert any(a.id in pair[:2] for pair in links(store))
    with store.atomic() as conn:
        enqueue(conn, [a.id])
    forget.forget(store, a.id, device=DEVICE)
    assert all(a.id not in pair[:2] for pair in links(store))
    assert store.query_one("SELECT count(*) FROM pending_links WHERE memory_id = ?", (a.id,))[0] == 0
    assert status(store, b.id) == status(store, c.id) == "active" and ledger_verify.verify(store).ok


def test_fusion_keeps_time_order_and_every_fact_with_union_evidence_and_cold_sources(store: Store) -> None:
    fused, sources = _fuse(store)
    text = store.query_one("SELECT text FROM memory_items WHERE id = ?", (fused,))[0]
    positions = [text.index(w) for w in DAYS]
    assert positions == sorted(positions)  # oldest first, every fact kept
    assert all(status(store, s) == "archived" for s in sources)
    assert sorted((d for s, d, t in links(store) if s == fused and t == "fused")) == sorted(sources)
    evidence = store.query_one(
        "SELECT count(DISTINCT episode_id) FROM evidence WHERE memory_id = ?", (fused,)
    )[0]
    assert evidence == len(sources)


def test_forgetting_one_sources_episode_erases_the_fused_memory_and_brings_the_others_back(
    store: Store,
) -> None:
    fused, sources = _fuse(store)
    episode = store.query_one("SELECT episode_id FROM evidence WHERE memory_id = ?", (sources[2],))[0]
    plan = forget.plan(store, episode)
    assert fused in plan.memories and sources[2] in plan.memories
    assert plan.restored == sorted(s for i, s in enumerate(sources) if i != 2)
    forget.forget(store, episode, device=DEVICE)
    assert status(store, fused) == status(store, sources[2]) == "forgotten"
    assert [status(store, s) for i, s in enumerate(sources) if i != 2] == ["active"] * 4
    assert links(store) == []  # every fused link went with the fused memory
    assert DAYS[2] not in str(store.query("SELECT text FROM memory_items"))  # nothing keeps its words
    restores = [e for e in ledger.entries(store) if e.op == "memory.restore"]
    assert sorted(e.target_id for e in restores) == plan.restored and ledger_verify.verify(store).ok


def test_forgetting_a_broader_memory_brings_the_one_it_sent_to_cold_storage_back(store: Store) -> None:
    narrow = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    broad = put(store, E, "Ann plays tennis on Sundays with Tom at the club.")
    link_all(store, E)
    assert status(store, narrow.id) == "archived"
    forget.forget(store, broad.id, device=DEVICE)
    assert status(store, narrow.id) == "active" and links(store) == []
