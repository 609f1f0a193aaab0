"""A value is the name as said: a leading "new" is a change word only in lower case."""

from __future__ import annotations

import pytest
from veramem_desktop.models.llm.rules.keys import attribute


@pytest.mark.parametrize(
    ("sentence", "key"),
    [
        ("I live in New York.", ("user", "lives_in", "New York")),
        ("We moved to New Delhi last spring.", ("user", "lives_in", "New Delhi")),
        ("I work at New Balance.", ("user", "works_at", "New Balance")),
    ],
)
def test_a_name_that_begins_with_new_keeps_it(sentence: str, key: tuple[str, str, str]) -> None:
    assert attribute(sentence) == key


@pytest.mark.parametrize(
    ("sentence", "ended", "taken"),
    [
        ("Gave up on german, switched to korean.", "german", "korean"),
        ("I gave up on Swedish and switched to Welsh last month.", "swedish", "welsh"),
    ],
)
def test_a_value_ended_and_one_taken_up_in_one_sentence_are_both_keyed(
    sentence: str, ended: str, taken: str
) -> None:
    """A multi-valued attribute: what was left is ended by its clause, and the switch's value is taken up;
    keeping one key per attribute dropped the new value."""
    from veramem_desktop.models.llm.rules.keys import read_all

    found = read_all(sentence)
    said = {(k.value.lower() if k.value else None, k.ends) for k in found}
    assert (ended, True) in said and (taken, False) in said, found
    assert len({k.predicate for k in found}) == 1, found


@pytest.mark.parametrize(
    ("sentence", "predicate", "value"),
    [
        # a value of a kind written with figures keys its attribute, with or without "my"
        ("Marathon PB is 3:58 now.", "personal_best", "3:58"),
        ("My 10k PB is 48:02.", "personal_best", "48:02"),
        # the object gives its attribute away by itself, whatever the verb
        ("Rented a viola from the music shop in March.", "instrument", "viola"),
        ("I picked up the oboe.", "instrument", "oboe"),
    ],
)
def test_a_value_that_gives_its_attribute_away_is_keyed_to_it(
    sentence: str, predicate: str, value: str
) -> None:
    from veramem_desktop.models.llm.rules.keys import read_all

    found = read_all(sentence)
    assert [(k.predicate, k.value) for k in found][:1] == [(predicate, value)], found


@pytest.mark.parametrize(
    "sentence",
    [
        "Listening to a viola concerto.",
        "I hate the oboe.",
        "My cousin rented a viola.",
        "I used to play the oboe.",
    ],
)
def test_a_thing_of_a_value_a_liking_or_someone_elses_is_no_value_of_the_speakers(sentence: str) -> None:
    from veramem_desktop.models.llm.rules.keys import read_all

    assert not [k for k in read_all(sentence) if k.predicate == "instrument" and k.subject == "user"]


@pytest.mark.parametrize(
    ("sentence", "predicate", "value"),
    [
        # the longest ending of a name that the inventory has a noun for gives its attribute
        ("Had to switch so I'm at Rowan Court Health Centre now.", "doctor", "Rowan Court Health Centre"),
        ("I bank with Thistledown Bank.", "bank", "Thistledown Bank"),
        # a thing of the inventory whose values are plain nouns, said with no owner, is the speaker's
        ("The savings pot is a holiday fund now.", "savings_goal", "holiday fund"),
        # a name written as one word that ends with the attribute's noun: a verb of many attributes ("join")
        # reads as the one its value names, never the employer
        ("Just joined FlexiGym on the high street, total beginner.", "gym", "FlexiGym"),
    ],
)
def test_an_attribute_known_by_the_words_of_a_name_or_a_plain_noun(
    sentence: str, predicate: str, value: str
) -> None:
    from veramem_desktop.models.llm.rules.keys import read_all

    found = read_all(sentence)
    assert [(k.predicate, k.value) for k in found][:1] == [(predicate, value)], found


def test_a_word_that_describes_an_ownerless_thing_is_no_value() -> None:
    from veramem_desktop.models.llm.rules.keys import read_all

    assert read_all("The savings pot is tiny.") == []


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Our new place is 27 Copse Hill.", "Copse Hill"),
        ("My new flat is 4b Marsh Row.", "Marsh Row"),
    ],
)
def test_an_address_after_a_house_number_is_a_value_of_the_home(sentence: str, value: str) -> None:
    """A name after a house number is a name: the noun "place" keys the home, not a subject of its own."""
    who, predicate, said = attribute(sentence)
    assert (who, predicate) == ("user", "lives_in") and said is not None and value in said


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Finally got an iPhone 15 Pro.", "iPhone 15 Pro"),
        ("I got an iPhone 13 Pro.", "iPhone 13 Pro"),
        ("Switched to a Galaxy S23 Ultra.", "Galaxy S23 Ultra"),
        ("Bought a Pixel 8 Pro.", "Pixel 8 Pro"),
    ],
)
def test_a_models_number_inside_its_name_stays_in_the_value(sentence: str, value: str) -> None:
    """The small pipeline may hang a model's number on the make ("iPhone" <- "15") rather than on the
    name's last word; the number is still part of the name ("iPhone Pro" was stored)."""
    assert attribute(sentence) == ("user", "phone", value)
