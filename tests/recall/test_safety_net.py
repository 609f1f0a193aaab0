"""Recall's safety net: when the write path recorded no change (no key: the model here drops every key),
the newest statement of an attribute of the person leads, and older ones read ``probably_superseded``.
Real SQLCipher store, the rule-based model with its keys removed, the hash embedder. Every sentence is
written for these tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.keyless_model import keyless_memory

from veramem_desktop.memory import Memory


@pytest.fixture
def keyless(isolated_home: Path) -> Iterator[Memory]:
    mem = keyless_memory(isolated_home, HashEmbedder())
    yield mem
    mem.close()


def said(mem: Memory, text: str, day: str) -> str:
    """Add one user message at ``day`` (noon UTC); the id of the memory made from it."""
    done = mem.add([{"role": "user", "content": text, "time": f"{day}T12:00:00+00:00"}])
    made = done.added + done.updated
    assert made, done
    return str(made[0]["id"])


def _first_with(hits: Sequence[object], word: str) -> int:
    return next(i for i, h in enumerate(hits) if word in h.text)  # type: ignore[attr-defined]


def test_a_move_the_write_path_missed_puts_the_new_home_first_and_the_old_one_probably_superseded(
    keyless: Memory,
) -> None:
    old = said(keyless, "I live in Leuven, close to the station.", "2023-02-01")
    new = said(keyless, "We finally moved into a flat in Ghent!", "2024-06-01")
    hits = keyless.search("where do I live?", k=10).results
    assert hits[0].id == new and hits[0].state == "current"
    stale = [h for h in hits if "Leuven" in h.text and h.kind != "episode"]
    assert stale and all(h.state == "probably_superseded" and h.superseded_by == new for h in stale)
    assert not any(h.actionable for h in stale)
    assert _first_with(hits, "Ghent") < _first_with(hits, "Leuven")
    assert old in {h.id for h in stale}


def test_a_change_said_without_i_leads_and_the_answer_names_the_old_value_as_past(keyless: Memory) -> None:
    said(keyless, "I work at Brightline Labs.", "2023-02-01")
    new = said(keyless, "Joined Quarry Systems last Monday.", "2024-07-01")
    hits = keyless.search("where do I work?", k=10).results
    assert hits[0].id == new
    assert next(h for h in hits if "Brightline" in h.text).state == "probably_superseded"
    answer = keyless.answer("Where do I work?")
    assert not answer.abstained
    assert answer.text.index("Quarry Systems") < answer.text.index("before that, Brightline Labs")


def test_another_persons_change_leaves_the_users_own_attribute_current(keyless: Memory) -> None:
    own = said(keyless, "I work at Brightline Labs.", "2023-02-01")
    said(keyless, "My brother took a job at Ostara Freight.", "2024-08-01")
    hits = keyless.search("where do I work?", k=10).results
    mine = next(h for h in hits if h.id == own)
    assert mine.state == "current"
    assert all(h.state != "probably_superseded" for h in hits)


def test_statements_of_a_multi_valued_attribute_do_not_replace_each_other(keyless: Memory) -> None:
    said(keyless, "I'm learning Portuguese on the train.", "2023-03-01")
    said(keyless, "Started learning Korean too.", "2024-03-01")
    said(keyless, "We adopted a beagle called Tofu.", "2023-05-01")
    said(keyless, "I got a cat named Miso.", "2024-05-01")
    for question in ("which languages am I learning?", "what pets do I have?"):
        assert all(h.state != "probably_superseded" for h in keyless.search(question, k=10).results)


def test_the_old_value_said_again_in_the_past_never_leads(keyless: Memory) -> None:
    said(keyless, "I use Sublime for everything.", "2023-01-05")
    new = said(keyless, "Switched to Neovim last month.", "2024-02-01")
    said(keyless, "Back when I still used Sublime I was so much slower.", "2024-09-01")
    hits = keyless.search("which editor do I use?", k=10).results
    assert hits[0].id == new
    assert all(h.state != "current" for h in hits if "Sublime" in h.text and h.kind != "episode")


def test_a_restatement_of_the_same_value_supersedes_nothing(keyless: Memory) -> None:
    first = said(keyless, "I live in Leuven.", "2023-01-10")
    said(keyless, "Still loving my flat in Leuven.", "2024-06-01")
    hits = keyless.search("where do I live?", k=10).results
    assert next(h for h in hits if h.id == first).state == "current"


def test_a_rejected_newer_statement_never_leads(keyless: Memory) -> None:
    said(keyless, "I live in Leuven.", "2023-01-10")
    wrong = said(keyless, "Moved to Ghent last week.", "2024-06-01")
    keyless.review.reject(wrong, "never moved")
    hits = keyless.search("where do I live?", k=10).results
    assert hits[0].state == "current" and "Leuven" in hits[0].text
    assert all("Ghent" not in h.text for h in hits)


def test_the_list_and_the_detail_give_a_replaced_memory_the_state_search_gives_it(keyless: Memory) -> None:
    old = said(keyless, "I work at Brightline Labs.", "2023-02-01")
    new = said(keyless, "Handed in my notice and joined Quarry Systems.", "2024-07-01")
    searched = {h.id: h.state for h in keyless.search("where do I work?", k=10).results}
    listed = keyless.reading.states(keyless.memories(limit=50))
    assert searched[old] == listed[old] == keyless.reading.detail(old).state == "probably_superseded"
    assert searched[new] == listed[new] == keyless.reading.detail(new).state == "current"


def test_a_question_in_other_words_is_answered_by_the_statement_of_the_asked_attribute(
    keyless: Memory,
) -> None:
    """Neither statement says "employer": the attribute each states (read from the inventory) does."""
    said(keyless, "I work at Brightline Labs.", "2023-02-01")
    said(keyless, "Joined Quarry Systems last Monday.", "2024-07-01")
    answer = keyless.answer("Who is my employer?")
    assert not answer.abstained and answer.text.index("Quarry Systems") < answer.text.index("Brightline")


def test_a_first_person_question_puts_the_statement_of_the_asked_attribute_before_chit_chat(
    keyless: Memory,
) -> None:
    """The assistant's lines share the word "work" with the question; only one statement says where."""
    for text in (
        "That layout would work well, and the shelves work nicely too.",
        "Yes, it should work. Let me know if the recipe does not work out.",
    ):
        keyless.add([{"role": "assistant", "content": text, "time": "2024-05-01T12:00:00+00:00"}])
    own = said(keyless, "I do the night shifts at Harbourview Clinic.", "2024-03-01")
    said(keyless, "Started at Quarry Systems in April.", "2024-04-20")
    hits = keyless.search("Where do I work now?", k=10).results
    assert hits[0].subject == "works_at" and "Quarry Systems" in hits[0].text, [
        (h.text, h.subject) for h in hits
    ]
    assert own not in [h.id for h in hits[:1]]
