"""The inflection step the rule answer speaks through: a memory about the user, said to the user."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.models.llm.rules.inflect import agree, first_to_second, in_the_past, second_person


@pytest.mark.parametrize(
    ("third", "second"),
    [
        ("User doesn't keep a car.", "You don't keep a car."),
        ("User isn't on call this week.", "You aren't on call this week."),
        ("User wasn't at the reunion.", "You weren't at the reunion."),
        ("User hasn't finished the thesis.", "You haven't finished the thesis."),
        ("User ares a night owl.", "You are a night owl."),
        # a sentence opening on a conjunction before the user
        ("And User is glad the router works.", "And you are glad the router works."),
        ("So User has a lodger now.", "So you have a lodger now."),
        ("But User doesn't drive.", "But you don't drive."),
        # after any words, where the verb after the user can only be finite
        ("Only on Sundays User is free.", "Only on Sundays you are free."),
        ("Third winter in a row User has had flu.", "Third winter in a row you have had flu."),
        ("Luckily User doesn't mind.", "Luckily you don't mind."),
        ("User is a beekeeper.", "You are a beekeeper."),
        ("User has two ferrets.", "You have two ferrets."),
        ("User teaches ceramics.", "You teach ceramics."),
        ("User carries a fountain pen.", "You carry a fountain pen."),
        ("User rarely buses to work.", "You rarely bus to work."),
        ("User also coaches the under-twelves.", "You also coach the under-twelves."),
        ("User's landlord raised the rent.", "Your landlord raised the rent."),
        ("User repaired the shed and User paints it now.", "You repaired the shed and you paint it now."),
        ("User can whistle.", "You can whistle."),
        ("User taught User's niece to knit.", "You taught your niece to knit."),
        ("Priya told User that User sings well.", "Priya told you that you sing well."),
        ("User trusts himself.", "You trust yourself."),
    ],
)
def test_a_third_person_memory_is_said_in_the_second_person_with_the_verb_agreeing(
    third: str, second: str
) -> None:
    assert second_person(third) == second


@given(
    st.sampled_from(["bake", "watch", "fix", "marry", "play", "go", "do", "kiss", "buzz", "echo", "rely"]),
    st.sampled_from(["", "often ", "really ", "never "]),
)
def test_any_present_verb_after_the_user_goes_back_to_its_lemma(lemma: str, adverb: str) -> None:
    from lemminflect import getInflection

    third = getInflection(lemma, tag="VBZ")[0]
    said = second_person(f"User {adverb}{third} every day.")
    assert said == f"You {adverb}{lemma} every day."
    assert "User" not in said


@pytest.mark.parametrize("word", ["moved", "news", "always", "was-", "could", "is"])
def test_a_word_that_is_no_third_person_present_keeps_its_form_or_becomes_are(word: str) -> None:
    assert agree(word) in (word, "are")


@pytest.mark.parametrize(
    ("present", "past"),
    [
        ("You live in Tallinn.", "You lived in Tallinn."),
        ("You are a nurse.", "You were a nurse."),
        ("You still drive a van.", "You still drove a van."),
        ("Your manager is Odile.", "Your manager was Odile."),
        ("You moved to Ghent.", "You moved to Ghent."),
        # what held "now" when it was said held then
        ("You are now the proud owner of a Skoda Fabia.", "You were the proud owner of a Skoda Fabia."),
        ("Your dentist is currently Dr Amadi.", "Your dentist was Dr Amadi."),
        ("You rent in Leith for now.", "You rented in Leith for now."),
        ("You are nowhere near Leith.", "You were nowhere near Leith."),
    ],
)
def test_a_statement_is_told_in_the_past(present: str, past: str) -> None:
    assert in_the_past(present) == past


def test_the_users_own_words_are_said_back_in_the_second_person() -> None:
    assert (
        first_to_second("I was renting in Ghent with my cousin.")
        == "You were renting in Ghent with your cousin."
    )
    assert first_to_second("I'm at the co-op now.") == "You're at the co-op now."


@pytest.mark.parametrize(
    ("said", "back"),
    [
        # a memory of the person's words: "User" is the person, their "you" whom they told
        (
            "Nope, User mentioned it to you twice, the lease ends in May.",
            "Nope, you mentioned it to the assistant twice, the lease ends in May.",
        ),
        ("User reckons you were right about the damp.", "You reckon the assistant was right about the damp."),
        ("User's brother asked you for the recipe.", "Your brother asked the assistant for the recipe."),
    ],
)
def test_whom_the_person_spoke_to_is_never_said_as_them(said: str, back: str) -> None:
    """A "you" in the person's own words is the assistant they spoke to; said back to the person, it must
    not become a second "you" ("you mentioned it to you twice")."""
    assert second_person(said) == back


@pytest.mark.parametrize(
    ("said", "back"),
    [
        (
            "Could you sort me a packing list, I fly on Friday.",
            "Could the assistant sort you a packing list, you fly on Friday.",
        ),
        ("You said my tyres were fine.", "The assistant said your tyres were fine."),
        ("Thank you, my bike is fixed now.", "Thanks, your bike is fixed now."),
        (
            "Did I tell you my sister moved to Perth?",
            "Did you tell the assistant your sister moved to Perth?",
        ),
        # a "you" in a clause of its own may be anyone: it stays
        (
            "I love the flat, you can see the sea from the balcony.",
            "You love the flat, you can see the sea from the balcony.",
        ),
    ],
)
def test_a_raw_message_said_back_names_whom_it_was_said_to(said: str, back: str) -> None:
    assert first_to_second(said) == back
