"""Names typed in lower case are read as the history spells them (core/text/truecase.py,
core/write/casing.py), for the key and the memory's wording: its evidence quotes the words as typed.

The pure tests pin the rule (a word is a name when the history only ever writes it with a capital in the
middle of a sentence; a word English has anyway only inside the whole name). The write-path tests run
the rule-based extractor, the real parse pipeline, the real embedder and a real SQLCipher store, and show
that a forgotten message no longer shapes how another is read. Every sentence is this file's own.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.versions import current, say, versions
from veramem_desktop.core.text.truecase import Casing

from veramem_desktop.memory import Memory


def _casing(*texts: str) -> Casing:
    casing = Casing()
    casing.extend(texts)
    return casing


def test_a_name_the_history_writes_with_a_capital_is_spelt_so_where_it_is_typed_in_lower_case() -> None:
    casing = _casing("Congratulations to Oluwaseun! Brightwater Analytics is lucky to have her.")
    assert casing.case("oluwaseun got a job at brightwater analytics") == (
        "Oluwaseun got a job at Brightwater Analytics"
    )
    assert casing.case("oluwaseun's desk") == "Oluwaseun's desk"


def test_a_word_the_history_also_writes_in_lower_case_stays_as_typed() -> None:
    # a line all in lower case says nothing of case: its writer used no capitals at all
    casing = _casing("We met Zephyrine at the market.", "i think zephyrine is a nice word tbh")
    assert casing.case("zephyrine called") == "Zephyrine called"
    mixed = _casing("We met Zephyrine at the market.", "The word zephyrine came up at Dinah's party.")
    assert mixed.case("zephyrine called") == "zephyrine called"


def test_an_english_word_is_cased_only_inside_the_whole_name() -> None:
    casing = _casing("Her bike is a Cube Attain, and she shops at Boots on Tuesdays.")
    assert casing.case("my cube attain got stolen") == "my Cube Attain got stolen"
    assert casing.case("a cube of sugar and new boots") == "a cube of sugar and new boots"


def test_headings_and_shouted_words_are_no_evidence() -> None:
    casing = _casing("QUARTERLY GROCERY PLANNER", "Weekly Grocery Planner For Harrowgate")
    assert casing.case("grocery planner for harrowgate") == "grocery planner for harrowgate"
    # a line whose only capitals are shouted uses none: its lower-case "velmora" says nothing
    shouted = _casing("We met Velmora at the market.", "six months into velmora and it is NOT fun")
    assert shouted.case("velmora") == "Velmora"


def test_a_name_in_capitals_opening_a_sentence_or_joined_by_a_hyphen_is_a_name() -> None:
    """No writer puts a whole word in capitals because it opens a sentence ("WTBK clearly knew …"), and a
    name joined to a word by a hyphen is written as the name ("a Brevanta-green cake")."""
    casing = _casing(
        "Ha, good for Ines! WTBK clearly knew what they were doing.", "A Brevanta-green cake, then."
    )
    assert casing.case("ines got poached by wtbk, after probation at brevanta") == (
        "Ines got poached by WTBK, after probation at Brevanta"
    )
    # an English word in capitals opening a sentence is shouted, not a name
    assert _casing("NOT happening tonight.").case("not now") == "not now"


@given(st.lists(st.text(max_size=60), max_size=5), st.text(max_size=200))
def test_only_the_case_of_letters_ever_changes(history: list[str], text: str) -> None:
    cased = _casing(*history).case(text)
    assert len(cased) == len(text) and cased.lower() == text.lower()


def test_a_change_typed_in_lower_case_is_keyed_to_the_person_the_history_names(rmem: Memory) -> None:
    rmem.add(
        [
            {
                "role": "user",
                "content": "my partner oluwaseun is job hunting",
                "time": "2025-01-10T09:00:00Z",
            },
            {
                "role": "assistant",
                "content": "Good luck to Oluwaseun! Brightwater Analytics and Corvane are both hiring.",
                "time": "2025-01-10T09:01:00Z",
            },
        ]
    )
    done = say(rmem, "oluwaseun got a job at brightwater analytics!!", "2025-03-02T09:00:00Z")
    assert current(rmem, "Oluwaseun", "works_at") == ["Brightwater Analytics"]
    (made,) = versions(rmem, "Oluwaseun", "works_at")
    # the memory is written as the history spells the names; its evidence quotes the words as typed
    assert made.text.startswith("Oluwaseun got a job at Brightwater Analytics")
    assert rmem.reading.detail(made.id).evidence[0].quote == "oluwaseun got a job at brightwater analytics!!"
    assert done.episodes[0].content == "oluwaseun got a job at brightwater analytics!!"


def test_a_forgotten_message_no_longer_spells_a_name(rmem: Memory) -> None:
    told = rmem.add(
        [
            {
                "role": "assistant",
                "content": "Good luck to Oluwaseun! Brightwater Analytics and Corvane are hiring.",
                "time": "2025-01-10T09:01:00Z",
            }
        ]
    )
    say(rmem, "oluwaseun got a job at brightwater analytics!!", "2025-03-02T09:00:00Z")
    assert current(rmem, "Oluwaseun", "works_at") == ["Brightwater Analytics"]  # the names read, as told
    rmem.forget(told.episodes[0].id)
    say(rmem, "oluwaseun started at corvane this week", "2025-04-02T09:00:00Z")
    assert current(rmem, "Oluwaseun", "works_at") == ["Brightwater Analytics"]
    assert not any("Corvane" in (m.value or "") for m in rmem.memories(status=None, limit=100))
