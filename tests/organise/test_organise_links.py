"""The link graph and subsumption: typed links in one scope, cold storage with the authority guard."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from organise_support import link_all, links, open_store, put, status
from support.fake_embedder import HashEmbedder
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.lifecycle.linker import generality, rule_type
from veramem_desktop.core.lifecycle.links import enqueue, pending, pending_count
from veramem_desktop.core.llm import DEFAULT_CONTEXT_TOKENS, Capabilities, LinkVerdict, Reply
from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.store import Store
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(tmp_path / "s")
    yield s
    s.close()


E = HashEmbedder()


class VerdictLLM(RuleBasedLLM):
    """A model that answers every link question with one type (or fails)."""

    def __init__(self, verdict: str | None) -> None:
        super().__init__()
        self.verdict = verdict
        self.asked: list[tuple[str, str]] = []

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities("verdict model", batch_extraction=True, context_tokens=DEFAULT_CONTEXT_TOKENS)

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        self.asked.append((a, b))
        if self.verdict is None:
            raise ModelError("scripted failure")
        return Reply(LinkVerdict(self.verdict))  # type: ignore[arg-type]


def test_generality_needs_every_word_of_the_narrower_one_and_the_same_polarity() -> None:
    assert generality("Ann plays tennis on Sundays with Tom.", "Ann plays tennis on Sundays.") == "subsumes"
    assert generality("Ann plays tennis on Sundays.", "Ann plays tennis on Sundays with Tom.") == "subsumed"
    assert generality("Ann plays squash on Mondays.", "Ann plays tennis on Sundays.") is None
    assert (
        generality("Ann no longer plays tennis on Sundays with Tom.", "Ann plays tennis on Sundays.") is None
    )
    assert rule_type(0.9, conflict=True, supports_cosine=0.8) == "contrasts"
    assert rule_type(0.9, conflict=False, supports_cosine=0.8) == "supports"
    assert rule_type(0.6, conflict=False, supports_cosine=0.8) == "related"


def test_without_a_model_related_memories_are_linked_by_similarity_and_each_link_is_ledgered(
    store: Store,
) -> None:
    a = put(store, E, "Ann plays tennis on Sundays.")
    b = put(store, E, "Ann plays squash on Mondays.")
    report = link_all(store, E)
    assert links(store) == [(a.id, b.id, "related")]  # one edge per pair, from the first one linked
    assert report.links == [(a.id, b.id, "related")] and pending_count(store) == 0
    entries = [e for e in ledger.entries(store) if e.op == "link.add"]
    assert [(e.details["src"], e.details["dst"], e.details["type"]) for e in entries] == [
        (a.id, b.id, "related")
    ]
    assert "tennis" not in str(entries[0].to_dict()) and ledger_verify.verify(store).ok  # ids only


def test_a_model_decides_the_link_type_and_a_failing_model_falls_back_to_similarity(store: Store) -> None:
    a = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    b = put(store, E, "Ann plays squash on Mondays.")
    model = VerdictLLM("prerequisite")
    link_all(store, E, model)
    assert model.asked == [(a.text, b.text)] and links(store) == [(b.id, a.id, "prerequisite")]
    c = put(store, E, "Ann plays squash on Fridays.")
    link_all(store, E, VerdictLLM(None))
    assert {(s, d) for s, d, t in links(store) if t == "related" or t == "supports"} >= {(c.id, b.id)}


def test_a_recorded_conflict_is_linked_as_a_contrast_and_nothing_goes_cold(store: Store) -> None:
    a = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    b = put(
        store, E, "Ann plays tennis on Sundays with Tom.", role="tool", metadata={"conflicts_with": [a.id]}
    )
    link_all(store, E)
    assert links(store) == [(b.id, a.id, "contrasts")]
    assert status(store, a.id) == status(store, b.id) == "active"


def test_a_more_general_new_memory_sends_the_narrower_one_to_cold_storage_behind_a_link(store: Store) -> None:
    narrow = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    broad = put(store, E, "Ann plays tennis on Sundays with Tom at the club.")
    report = link_all(store, E)
    assert status(store, narrow.id) == "archived" and status(store, broad.id) == "active"
    assert links(store) == [(broad.id, narrow.id, "subsumes")] and report.cold == [narrow.id]
    meta = store.query_one(
        "SELECT json_extract(metadata, '$.cold_by') FROM memory_items WHERE id = ?", (narrow.id,)
    )
    assert meta[0] == broad.id


def test_a_less_general_new_memory_reinforces_the_existing_one_with_its_evidence(store: Store) -> None:
    broad = put(store, E, "Ann plays tennis on Sundays with Tom at the club.")
    link_all(store, E)
    narrow = put(store, E, "Ann plays tennis on Sundays.")
    link_all(store, E)
    assert status(store, narrow.id) == "archived" and status(store, broad.id) == "active"
    assert links(store) == [(broad.id, narrow.id, "subsumes")]
    episodes = {r[0] for r in store.query("SELECT episode_id FROM evidence WHERE memory_id = ?", (broad.id,))}
    narrow_ep = store.query_one("SELECT episode_id FROM evidence WHERE memory_id = ?", (narrow.id,))[0]
    assert narrow_ep in episodes and len(episodes) == 2
    confidence = store.query_one("SELECT confidence FROM memory_items WHERE id = ?", (broad.id,))[0]
    assert confidence == pytest.approx(0.75)


@pytest.mark.parametrize("order", [("user", "tool"), ("tool", "user")])
def test_a_lower_authority_memory_never_sends_a_higher_one_to_cold_storage(
    store: Store, order: Sequence[str]
) -> None:
    texts = {
        "user": "Ann plays tennis on Sundays.",
        "tool": "Ann plays tennis on Sundays with Tom at the club.",
    }
    first = put(store, E, texts[order[0]], role=order[0])
    link_all(store, E)
    second = put(store, E, texts[order[1]], role=order[1])
    link_all(store, E)
    user_item = first if order[0] == "user" else second
    assert status(store, user_item.id) == "active"
    user_evidence = store.query_one("SELECT count(*) FROM evidence WHERE memory_id = ?", (user_item.id,))[0]
    assert user_evidence == 1  # no tool evidence was attached to the authorized memory
    assert len(links(store)) == 1 and links(store)[0][2] in ("extends", "supports")


def test_a_pinned_memory_is_never_sent_to_cold_storage_by_subsumption(store: Store) -> None:
    narrow = put(store, E, "Ann plays tennis on Sundays.", pinned=True)
    link_all(store, E)
    broad = put(store, E, "Ann plays tennis on Sundays with Tom at the club.")
    link_all(store, E)
    assert status(store, narrow.id) == "active" and links(store) == [(broad.id, narrow.id, "extends")]


def test_whom_a_memory_speaks_of_is_not_content_and_two_people_never_subsume_each_other() -> None:
    assert generality("User sold User's old bike and bought a new one.", "User has a bike.") is None
    assert generality("Ann plays tennis on Sundays with Tom.", "Ann plays tennis.") == "subsumes"
    assert generality("User's sister moved to Lisbon.", "User moved to Lisbon.") is None
    assert generality("Mel works at Acme in Porto.", "User works at Acme.") is None


def test_selling_an_old_bike_and_buying_a_new_one_leaves_having_a_bike_in_place(rmem: Memory) -> None:
    have = rmem.add([{"role": "user", "content": "I have a bike."}]).added[0]["id"]
    rmem.add([{"role": "user", "content": "I sold my old bike and bought a new one."}])
    assert rmem.organiser.wait_for_links(timeout=30)
    assert rmem.get(have).status == "active"


def test_memories_queued_together_are_linked_in_the_order_they_were_queued(store: Store) -> None:
    """Ids end in random bits: ordered by id, one add's memories were linked in a different order each
    run (and which of two was linked first decides the direction of their edge)."""
    ids = [
        "mem_0000000000ZZZZZZZZZZZZZZZZ",
        "mem_0000000000AAAAAAAAAAAAAAAA",
        "mem_0000000000MMMMMMMMMMMMMMMM",
    ]
    with store.atomic() as conn:
        enqueue(conn, ids)
    assert pending(store, limit=10) == ids
