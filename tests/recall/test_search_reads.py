"""What one search asks of the store (issue 19, search latency at 10k): the store's version once for
the whole search rather than once per channel and cache, each ranked memory's row once for ranking
and the truth stage together, and the document frequencies of a question's new words in one
statement. The results stay the same, and a write made through another connection between two
searches is still found by the second."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchConfig

from veramem_desktop.memory import Memory

TEXTS = [
    "Alice moved to Lisbon in March.",
    "Alice prefers green tea to coffee.",
    "Bob's sister plays the cello in Porto.",
    "The team meets on Thursdays at ten.",
    "Alice visited the tile museum in Lisbon.",
]
QUESTION = "Where did Alice move in March?"


def _statements(mem: Memory, run: Callable[[], object]) -> list[str]:
    """The SQL statements ``run`` makes on this thread through the facade's connection (not FTS5's own
    inner statements, which it reports with a leading "--")."""
    me = threading.get_ident()
    seen: list[str] = []
    conn = store_of(mem).conn
    conn.set_trace_callback(lambda sql: seen.append(sql) if threading.get_ident() == me else None)
    try:
        run()
    finally:
        conn.set_trace_callback(None)
    return [s for s in seen if not s.startswith("--")]


def _stored(mem: Memory) -> None:
    mem.measuring.add_prepared(TEXTS, user_id="alice", vectors=list(embedder_of(mem).embed(TEXTS)))


def test_a_search_reads_the_store_version_once_and_twice_more_around_its_trace(mem: Memory) -> None:
    _stored(mem)
    engine, caller = engine_of(mem), mem.caller("alice")
    engine.search(QUESTION, caller, write_trace=False)  # the caches are filled
    without_trace = _statements(mem, lambda: engine.search(QUESTION, caller, write_trace=False))
    assert without_trace.count("PRAGMA data_version") == 1
    with_trace = _statements(mem, lambda: mem.search(QUESTION, user_id="alice"))
    assert with_trace.count("PRAGMA data_version") == 3


def test_the_truth_stage_reads_again_no_memory_that_ranking_read(mem: Memory) -> None:
    _stored(mem)  # memories and the messages they came from: the truth stage reads the messages' memories
    engine, caller = engine_of(mem), mem.caller("alice")
    found: list[object] = []
    made = _statements(mem, lambda: found.append(engine.search(QUESTION, caller, write_trace=False)))
    hits = found[0].results  # type: ignore[attr-defined]
    assert {h.kind for h in hits} == {"fact", "episode"} and all(h.state == "current" for h in hits)
    ranking_reads = [s for s in made if "m.last_used_at" in s]
    truth_reads = [s for s in made if s.startswith("SELECT m.id, m.status, m.trust")]
    assert len(ranking_reads) == 1
    ranked = set(re.findall(r"'(mem_\w+)'", ranking_reads[0]))
    assert ranked and not ranked & {m for s in truth_reads for m in re.findall(r"'(mem_\w+)'", s)}


def test_a_questions_new_words_are_counted_in_one_statement_and_then_kept(mem: Memory) -> None:
    _stored(mem)
    # Stores this small never weigh words by how common they are, unless told to (as 10,000 rows do).
    engine = mem.recall.search_engine(SearchConfig(term_prune_min_rows=1, term_max_df=1))
    caller = mem.caller("alice")

    def counts(question: str) -> list[str]:
        made = _statements(mem, lambda: engine.search(question, caller, write_trace=False))
        return [s for s in made if "count(*) FROM memory_fts" in s]

    first = counts("Alice Lisbon tile museum")
    assert len(first) == 1 and first[0].count("MATCH") == 4
    assert counts("Alice Lisbon tile museum") == []
    assert len(counts("Alice Porto cello")) == 1  # two new words, one statement


def test_a_memory_stored_through_another_connection_between_two_searches_is_found_by_the_second(
    mem: Memory, isolated_home: Path
) -> None:
    _stored(mem)
    question = "Which instrument does Carol play?"
    before = mem.search(question, user_id="alice")
    assert not any("Carol" in h.text for h in before.results)
    other = Memory(isolated_home, passphrase=PASSPHRASE, embedder=HashEmbedder())
    try:
        text = "Carol plays the viola in a string quartet."
        other.measuring.add_prepared([text], user_id="alice", vectors=list(HashEmbedder().embed([text])))
    finally:
        other.close()
    after = mem.search(question, user_id="alice")
    assert any("Carol" in h.text for h in after.results)
    assert engine_of(mem).search(question, mem.caller("alice"), write_trace=False).results[0].text == text


def test_the_holders_of_every_attribute_the_hits_state_are_read_in_one_statement(rmem: Memory) -> None:
    for text in (
        "I live in Berlin.",
        "I work as a nurse.",
        "My favourite colour is green.",
        "I am 34 years old.",
    ):
        rmem.add([{"role": "user", "content": text}], user_id="user")
    engine, caller = engine_of(rmem), rmem.caller("user")
    found: list[object] = []
    made = _statements(rmem, lambda: found.append(engine.search("about me", caller, k=20, write_trace=False)))
    keys = {(h.about, h.subject) for h in found[0].results if h.subject}  # type: ignore[attr-defined]
    assert len(keys) >= 2
    assert len([s for s in made if "INDEXED BY memory_key" in s]) == 1
