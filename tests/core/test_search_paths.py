"""Routing, temporal order, the shared block, traces and cache coherence of search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core import attributes
from veramem_desktop.core.recall import questions
from veramem_desktop.core.recall.query import route_for, temporal_intent
from veramem_desktop.core.storage import index, items
from veramem_desktop.core.storage.items import MemoryItem

from veramem_desktop.memory import Memory


def _put(mem: Memory, text: str, **fields: object) -> MemoryItem:
    emb = embedder_of(mem)
    base = {"kind": "fact", "authority": "authorized", "user_id": "me"}
    base.update(fields)
    with store_of(mem).atomic() as conn:
        item = items.insert(conn, MemoryItem(id="", text=text, **base), [], device="d")  # type: ignore[arg-type]
        index.index_memory(conn, emb.name, item.id, text, emb.embed([text])[0])
    return item


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("summarise what I did last month", "summaries"),
        ("give me an overview of the project", "summaries"),
        ("what exactly did I say about the lease?", "raw"),
        ("compare Lisbon and Porto", "dual"),
        ("what did Ana and Rui buy?", "dual"),
        ("where do I live?", "facts"),
    ],
)
def test_queries_are_routed_by_rules(query: str, route: str) -> None:
    assert route_for(query) == route


@pytest.mark.parametrize(
    ("query", "route"),
    [
        # a question of what holds now: the statements and the messages they came from
        ("who's my mobile provider now?", "dual"),
        ("which gym am I at these days?", "dual"),
        ("where does Caroline work?", "dual"),
        # a history question, or one the rule routes elsewhere, keeps the rule's route
        ("when did I move to Leeds?", "facts"),
        ("what did I do after 2023-05-01?", "facts"),
        ("summarise my week", "summaries"),
        ("what exactly did I say about the lease?", "raw"),
    ],
)
def test_a_question_of_now_searches_the_messages_beside_the_statements(
    mem: Memory, query: str, route: str
) -> None:
    engine = engine_of(mem)
    assert engine.route(query, temporal_intent(query).kind) == route
    assert mem.search(query).route == route


def test_the_answer_is_composed_from_the_statements_first_and_search_shows_the_messages(mem: Memory) -> None:
    mem.add(
        [
            {"content": "My phone contract is with Vodafone.", "time": "2023-02-01T10:00:00Z"},
            {"content": "ported my number to Tidewave Mobile last month", "time": "2024-03-01T10:00:00Z"},
        ],
        session_id="phone",
    )
    found = mem.search("who's my mobile provider now?")
    assert found.route == "dual" and any(h.kind == "episode" for h in found.results)
    said = mem.answer("who's my mobile provider now?")
    assert said.ladder[0] == "retrieve:facts", said.ladder


def test_summary_route_returns_summaries_and_facts_route_does_not(mem: Memory) -> None:
    summary = _put(mem, "Session summary: planned the garden renovation", kind="summary")
    fact = _put(mem, "The garden renovation starts in June")
    assert summary.id in {h.id for h in mem.search("summarise the garden renovation").results}
    facts = {h.id for h in mem.search("garden renovation start", route="facts").results}
    assert fact.id in facts and summary.id not in facts


def test_raw_route_searches_episodes(mem: Memory) -> None:
    ep = mem.add("I told the landlord the radiator rattles", session_id="s").episodes[0]
    hits = mem.search("what exactly did I say about the radiator?").results
    assert hits and hits[0].id == ep.id and hits[0].kind == "episode"


def test_temporal_questions_come_back_in_time_order(mem: Memory) -> None:
    mem.add(
        [
            {"content": "I adopted a cat named Miso", "time": "2023-03-01T10:00:00Z"},
            {"content": "The cat Miso had her vet checkup", "time": "2023-06-01T10:00:00Z"},
            {"content": "Miso the cat learned to open doors", "time": "2023-01-01T10:00:00Z"},
        ],
        session_id="cats",
    )
    assert temporal_intent("when did Miso see the vet?").kind == "when"
    result = mem.search("when did the cat Miso do things?", route="raw")
    times = [h.time for h in result.results]
    assert times == sorted(times) and len(times) == 3
    latest = mem.search("what is the latest about Miso the cat?", route="raw")
    assert [h.time for h in latest.results] == sorted(times, reverse=True)
    since = mem.search("what happened with Miso the cat since 2023-02-15?", route="raw")
    assert {h.time[:7] for h in since.results} == {"2023-03", "2023-06"}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # asked in the present, "when" asks the date of what holds now, not when something happened
        ("When is the bin collection at the allotment?", None),
        ("when's Zara's piano recital?", None),
        ("what day does Ines have swimming?", None),
        ("When did Zara start piano?", "when"),
        ("what year was the allotment shed built?", "when"),
    ],
)
def test_when_asked_in_the_present_is_no_history_question(question: str, kind: str | None) -> None:
    assert temporal_intent(question).kind == kind


def test_after_naming_no_time_sets_no_bound_and_the_newest_statement_leads(mem: Memory) -> None:
    """ "who picks Ines up after school now?" names no time after "after": the question is asked of now, so
    the newest statement of the pick-ups leads and none is dropped by a bound no one set."""
    mem.add(
        [
            {
                "content": "Grandad Tomas picks Ines up from school on weekdays.",
                "time": "2023-01-10T10:00:00Z",
            },
            {
                "content": "Switched the pick-ups to the after-school club, Ines loves it.",
                "time": "2024-02-01T10:00:00Z",
            },
        ],
        session_id="school",
    )
    question = "who picks Ines up after school now?"
    assert temporal_intent(question).kind == "since"  # as written; the bound's words are read as no time
    result = mem.search(question, route="raw")
    assert result.temporal == "latest" and not result.notices, result.notices
    assert len(result.results) == 2 and "club" in result.results[0].text, [h.text for h in result.results]


def test_temporal_search_prefers_the_newest_valid_version(mem: Memory) -> None:
    old = _put(mem, "I live in Lisbon", subject="user", predicate="lives_in", value="Lisbon")
    with store_of(mem).atomic() as conn:
        new = items.new_version(
            conn,
            old,
            MemoryItem(id="", kind="fact", text="I live in Porto", authority="authorized", user_id="me"),
            [],
            device="d",
        )
        index.index_memory(
            conn, embedder_of(mem).name, new.id, new.text, embedder_of(mem).embed([new.text])[0]
        )
    ids = [h.id for h in mem.search("where do I live now, latest?").results]
    assert new.id in ids and old.id not in ids


def test_shared_items_come_in_their_own_block_and_never_displace_own_results(mem: Memory) -> None:
    own = [_put(mem, f"sourdough tip {i}: feed the starter") for i in range(3)]
    shared = [
        _put(
            mem,
            f"sourdough starter feeding schedule {i}",
            user_id=f"other{i}",
            visibility="public",
            authority="unendorsed",
            source="shared",
        )
        for i in range(6)
    ]
    result = mem.search("sourdough starter feeding", k=3)
    assert {h.id for h in result.results} == {i.id for i in own}
    assert result.shared and {h.id for h in result.shared} <= {s.id for s in shared}
    assert all(h.authority == "unendorsed" for h in result.shared)


def test_every_search_writes_a_trace_with_what_it_returned(mem: Memory) -> None:
    item = _put(mem, "the wifi password is on the fridge")
    result = mem.search("wifi password")
    row = store_of(mem).query_one(
        "SELECT query, route, returned_ids, kind FROM traces WHERE id = ?", (result.trace_id,)
    )
    assert row[0] == "wifi password" and row[1] == result.route and row[3] == "search"
    assert item.id in json.loads(row[2])


def test_an_added_item_is_found_at_once_and_an_erased_one_never_again(mem: Memory) -> None:
    assert not mem.search("quokka sanctuary").results
    item = _put(mem, "visited the quokka sanctuary on Rottnest")
    assert mem.search("quokka sanctuary").results[0].id == item.id
    with store_of(mem).atomic() as conn:
        index.remove_owner(conn, "memory", item.id)
        conn.execute("DELETE FROM memory_items WHERE id = ?", (item.id,))
    for channels in (("dense",), ("bm25",), ("entity",), None):
        _, scores, _ = engine_of(mem).rank("quokka sanctuary Rottnest", mem.caller(), channels=channels)
        assert item.id not in scores
    assert engine_of(mem).caches["memory"].vector(item.id) is None


def test_an_item_added_by_another_process_is_found_on_the_next_search(
    mem: Memory, isolated_home: Path
) -> None:
    assert not mem.search("pangolin").results  # warm the caches first
    code = (
        "from veramem_desktop.memory import Memory\n"
        "from support.fake_embedder import HashEmbedder\n"
        f"m = Memory({str(isolated_home)!r}, embedder=HashEmbedder())\n"
        "m.add('a pangolin visited the garden', session_id='other')\n"
        "m.close()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    hits = mem.search("pangolin garden", route="raw").results
    assert hits and "pangolin" in hits[0].text
    assert engine_of(mem).caches["episode"].vector(hits[0].id) is not None


def test_bad_queries_get_clear_errors(mem: Memory) -> None:
    from veramem_desktop.core.errors import InvalidInputError

    with pytest.raises(InvalidInputError):
        mem.search("   ")
    with pytest.raises(InvalidInputError):
        mem.search("x", route="everything")
    assert mem.search('"); DROP TABLE episodes; -- AND OR NEAR(') is not None


def test_words_too_common_to_rank_are_left_out_of_the_full_text_query(mem: Memory) -> None:
    for i in range(20):
        _put(mem, f"weekly grocery list number {i}")
    for i in range(6):
        _put(mem, f"weekly yoga class {i}")
    for i in range(6):
        _put(mem, f"grocery coupons {i}")
    rare = _put(mem, "weekly grocery list with saffron")
    engine = engine_of(mem)
    engine.config.term_max_df = 5
    engine.config.term_prune_min_rows = 0
    _, scores, _ = engine.rank("weekly saffron", mem.caller(), route="facts", channels=("bm25",))
    assert list(scores) == [rare.id]  # "weekly" (27 rows) says little and is not ranked
    _, scores, _ = engine.rank("weekly grocery", mem.caller(), route="facts", channels=("bm25",))
    # With only common words, the rows holding all of them are ranked (not all 27 of the rarer word's)
    assert len(scores) == 21
    _, scores, _ = engine.rank("yoga coupons", mem.caller(), route="facts", channels=("bm25",))
    assert scores == {}  # both common, never together: nothing worth ranking


def test_a_search_embeds_its_query_once_even_when_raw_turns_fill_in(mem: Memory) -> None:
    mem.add("The boiler was serviced by Kofi in March", session_id="s")
    engine = engine_of(mem)
    inner = engine.embedder
    seen: list[str] = []
    asked_alone = {
        questions.asked_phrase(q) for q in ("who serviced the boiler?", "when was the boiler serviced?")
    }

    class Counting:
        name, dim = inner.name, inner.dim

        def embed(self, texts: list[str]) -> object:
            # the inventory's descriptions are embedded once per embedder, and the nouns a question asks said
            # alone ("boiler"), for a question read by its meaning; the query itself is what is counted
            seen.extend(t for t in texts if t not in attributes.descriptions() and t not in asked_alone)
            return inner.embed(texts)

    engine.embedder = Counting()  # type: ignore[assignment]
    result = mem.search("who serviced the boiler?", route="facts")
    assert any(h.kind == "episode" for h in result.results)  # the raw route filled in
    assert seen == ["who serviced the boiler?"]
    mem.search("who serviced the boiler?", route="facts")
    assert len(seen) == 1  # asked again at once: the last embedding is reused
    mem.search("when was the boiler serviced?", route="facts")
    assert seen[-1] == "when was the boiler serviced?" and len(seen) == 2
