"""A question in words the inventory has no entry for is read by its meaning (core/recall/meaning.py), and
what it asks then leads as any asked attribute does: "who does my hair now?" asks the hairdresser, whose
value is a person, so a line opening on that person's name states it. The write path's keys are removed
(the model here records no change), so recall alone is seen. Real SQLCipher store, the real ONNX
embedder; every sentence is written for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.keyless_model import keyless_memory
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import meaning, questions, statements

from veramem_desktop.memory import Memory


@pytest.fixture
def keyless(isolated_home: Path, real_embedder: Embedder) -> Iterator[Memory]:
    mem = keyless_memory(isolated_home, real_embedder)
    yield mem
    mem.close()


def said(mem: Memory, text: str, day: str) -> None:
    mem.add([{"role": "user", "content": text, "time": f"{day}T12:00:00+00:00"}])


@pytest.mark.parametrize(
    ("question", "attribute"),
    [
        ("who trims my hair at the moment?", "hairdresser"),
        ("who does our gas and electricity these days?", "energy_supplier"),
        ("where do I volunteer on Saturdays?", "volunteering"),
        # the whole question is near nothing; the noun it asks, said alone, is near the medication
        ("which antidepressant do I take at the moment?", "medication"),
    ],
)
def test_a_question_whose_words_name_no_attribute_is_read_by_its_meaning(
    question: str, attribute: str, real_embedder: Embedder
) -> None:
    assert meaning.unread(question)
    (vector,) = real_embedder.embed([question])
    assert meaning.meant(question, vector, real_embedder) == {attribute}


@pytest.mark.parametrize(
    "question",
    [
        "where do I work these days?",  # its words read the employer: they decide
        "what's the airspeed of an unladen swallow?",  # near no attribute
        "where does Femi live now?",  # someone named: whose it is comes from the words
    ],
)
def test_a_question_read_by_its_words_or_near_nothing_is_not_read_by_meaning(
    question: str, real_embedder: Embedder
) -> None:
    (vector,) = real_embedder.embed([question])
    assert meaning.meant(question, vector, real_embedder) == frozenset()


def test_the_newest_statement_of_an_attribute_asked_by_meaning_leads_and_names_a_person(
    keyless: Memory,
) -> None:
    # the old line is far closer to the question's words; read by its meaning the question asks the
    # hairdresser, a person, so the newer line opening on her name states it and leads
    said(keyless, "Odile trims my hair every six weeks at her salon in Kilburn.", "2022-02-11")
    said(keyless, "Fenna at Snip Theory in Camden did my cut today, best in ages.", "2024-05-03")
    hits = keyless.search("who trims my hair at the moment?", k=10).results
    assert "Fenna" in hits[0].text
    old = [h for h in hits if "Odile" in h.text]
    assert old and all(h.state == "probably_superseded" for h in old)
    answer = keyless.answer("who trims my hair at the moment?")
    assert not answer.abstained
    assert answer.text.startswith("Fenna")


def test_a_thing_owned_with_the_is_no_person_asked_about() -> None:
    assert questions.person_asked("who supplies the bakery's gas now") == frozenset()
    assert questions.person_asked("where does Odile's sister live") == {"odile"}


def test_a_road_name_is_one_word_and_never_the_article() -> None:
    # "A64" read as "A" and "64" once made the article a stopped value, and every line with "a" a statement
    assert statements.WORD.findall("the van died on the A64") == ["the", "van", "died", "on", "the", "A64"]
    assert "a" not in statements.values("Broke down on the A64 near the services, a right mess.", "")


def test_the_reading_by_meaning_can_be_switched_off_for_the_benchs_ablation(keyless: Memory) -> None:
    from support.internals import engine_of

    engine = engine_of(keyless)
    assert engine.meant("who trims my hair at the moment?") == {"hairdresser"}
    engine.config.read_by_meaning = False
    assert engine.meant("who trims my hair at the moment?") == frozenset()


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("what blood thinner am I on at the moment?", "blood thinner"),  # "moment" says when
        ("which antihistamine do I take these days?", "antihistamine"),  # unknown to the lexicon, asked for
        ("who's our childminder now?", "childminder"),
        ("where do I work?", ""),  # the word after "I" is its verb
    ],
)
def test_the_nouns_a_question_asks_are_said_in_its_order(question: str, phrase: str) -> None:
    assert questions.asked_phrase(question) == phrase
