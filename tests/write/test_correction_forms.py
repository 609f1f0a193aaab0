"""Which sentences read as corrections (core/write/correction_forms.py), and how a statement is re-worded
without the value it takes back. The engine acts on these only when a current memory of the same
subject holds the wrong value (tests/write/test_corrections.py)."""

from __future__ import annotations

import pytest
from veramem_desktop.core.write.correction_forms import read, restated, substituted


@pytest.mark.parametrize(
    ("sentence", "wrong", "right", "form"),
    [
        ("Actually I moved to Porto, not Lisbon.", "Lisbon", None, "statement"),
        ("Caroline moved to Boston, not Denver", "Denver", None, "statement"),
        ("I moved not to Lisbon but to Porto.", "to Lisbon", None, "statement"),
        ("I don't live in Lisbon anymore, I live in Porto", "live in Lisbon", None, "statement"),
        ("Not Lisbon — Porto.", "Lisbon", "Porto", "bare"),
        ("Not Lisbon but Porto.", "Lisbon", "Porto", "bare"),
        ("It was Maria, not Anna.", "Anna", "Maria", "bare"),
        ("It was not Anna but Maria.", "Anna", "Maria", "bare"),
        ("Correction: Porto, not Lisbon.", "Lisbon", "Porto", "bare"),
        ("Sorry, I meant Porto.", None, "Porto", "bare"),
        ("No, my brother, not my sister.", "my sister", "my brother", "bare"),
    ],
)
def test_each_form_of_correction_names_the_wrong_value(
    sentence: str, wrong: str | None, right: str | None, form: str
) -> None:
    found = read(sentence)
    assert found is not None and (found.wrong, found.right, found.form) == (wrong, right, form)


@pytest.mark.parametrize(
    "sentence",
    [
        "I do not like jazz, not at all",
        "I love Lisbon, not to mention Porto.",
        "I not only moved to Porto but also bought a house.",
        "I can't come, not today.",
        "I'm not sure, but I think so.",
        "Not bad, thanks.",
        "Not really, I prefer tea.",
        "That's not what I said.",
        "Not easy facing setbacks but I believe in you.",
        "I no longer live in Lisbon.",
        "I moved to Lisbon in March 2024.",
    ],
)
def test_a_sentence_that_merely_contains_not_is_no_correction(sentence: str) -> None:
    assert read(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "extracted", "expected"),
    [
        (
            "Actually I moved to Porto, not Lisbon.",
            "User moved to Porto, not Lisbon.",
            "User moved to Porto.",
        ),
        (
            "I don't live in Lisbon anymore, I live in Porto",
            "User doesn't live in Lisbon anymore, User lives in Porto.",
            "User lives in Porto.",
        ),
        (
            "I moved not to Lisbon but to Porto.",
            "User moved not to Lisbon but to Porto.",
            "User moved to Porto.",
        ),
        (
            "I went to the market, not the mall, on Sunday.",
            "User went to the market, not the mall, on Sunday.",
            "User went to the market on Sunday.",
        ),
        ("I meant I moved to Porto.", "User meant User moved to Porto.", "User moved to Porto."),
    ],
)
def test_a_statement_is_restated_without_what_it_takes_back(
    sentence: str, extracted: str, expected: str
) -> None:
    found = read(sentence)
    assert found is not None and found.form == "statement"
    assert restated(extracted, found) == expected


def test_a_bare_value_takes_the_wrong_ones_place_as_whole_words() -> None:
    assert (
        substituted("User moved to Lisbon in March 2024.", "Lisbon", "Porto")
        == "User moved to Porto in March 2024."
    )
    assert substituted("User met Annabel at the gym.", "Anna", "Maria") is None
