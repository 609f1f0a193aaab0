"""A first-person question ("Where do I live?") is about the asker: in a store holding a conversation of
several named people, what the other speakers said of themselves comes after the asker's own memory,
in search and in the answer; a question that names one of them is left as relevance ranks it."""

from __future__ import annotations

import pytest
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.recall.rank import asker_first

from veramem_desktop.memory import Memory


@pytest.fixture
def three_homes(rmem: Memory) -> Memory:
    """Mel and Caroline say where they live in one conversation, then the user says where they live."""
    rmem.add(
        [
            {"role": "user", "name": "Mel", "content": "I live in Chicago now."},
            {"role": "user", "name": "Caroline", "content": "I live in Denver."},
        ]
    )
    rmem.add("I live in Austin.")
    return rmem


def test_where_do_i_live_puts_the_askers_home_first_in_search_and_answer(three_homes: Memory) -> None:
    first = three_homes.search("where do I live?").results[0]
    assert "Austin" in first.text and first.about == "user"
    assert three_homes.answer("Where do I live?").text.startswith("You live in Austin")


def test_a_question_naming_another_speaker_is_about_them(three_homes: Memory) -> None:
    assert "Chicago" in three_homes.search("where does Mel live?").results[0].text


def _hit(i: str, about: str | None, score: float) -> Hit:
    return Hit(i, "fact", i, score, "authorized", "candidate", about=about)


def test_asker_first_moves_only_other_named_people_and_keeps_each_part_in_order() -> None:
    hits = [
        _hit("mel", "Mel", 0.9),
        _hit("unknown", None, 0.8),
        _hit("mine", "user", 0.7),
        _hit("ana", "Ana", 0.6),
    ]
    assert [h.id for h in asker_first(hits, "Where do I live?")] == ["unknown", "mine", "mel", "ana"]
    assert [h.id for h in asker_first(hits, "Where does she live?")] == ["mel", "unknown", "mine", "ana"]
    assert [h.id for h in asker_first(hits, "What did I tell Mel?")] == ["mel", "unknown", "mine", "ana"]
