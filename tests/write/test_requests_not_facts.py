"""Requests and instructions to the assistant are not facts about the user; a request that carries a
statement ("Remind me that …") keeps the statement, quoted exactly."""

from __future__ import annotations

import pytest
from veramem_desktop.core.llm import Message
from veramem_desktop.models.llm.rules.extract import extract_with_skips
from veramem_desktop.models.llm.rules.requests import is_request
from veramem_desktop.models.llm.rules.smalltalk import REQUEST

from veramem_desktop.memory import Memory

WHEN = "2025-03-04T10:00:00Z"


def _extract(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    found, skipped = extract_with_skips([Message("m1", "user", text, WHEN, None)])
    return [(c.text, c.quote) for c in found], [s.reason for s in skipped]


@pytest.mark.parametrize(
    "text",
    [
        "Help me work out a budget for the renovation of my kitchen.",
        "Translate this paragraph into Portuguese for my landlord.",
        "Could you write a short bio for my pottery website.",
        "can u rewrite the intro of my thesis so it flows better",
        "can ye sort out a packing list for Crete",  # the person asked written as they say it
        "could youse check the wording on this card for Gran",
        "Heyyy can u make me a 3 day gym plan",  # a greeting stretched as chat stretches it
        "Pleeease check this cover letter for me",
        "Please list the documents I need for a Dutch residence permit.",
        "Pls explain the difference between a Roth IRA and a 401k.",
        "Suggest three names for my sister's bakery in Leeds.",
        "I need you to proofread the cover letter for the Arkwright job.",
        "Would you mind checking the maths in my mortgage spreadsheet.",
        "Let's plan a four-day itinerary for Kyoto in April.",
        "Get me a packing list for two weeks of camping in Norway.",
        "Remind me to renew my passport before the trip to Chile.",
        "Remind me about the parents' evening at Hollybank School.",
    ],
)
def test_a_request_or_instruction_to_the_assistant_gives_no_memory(text: str) -> None:
    found, reasons = _extract(text)
    assert found == []
    assert REQUEST in reasons


@pytest.mark.parametrize(
    "text",
    [
        "Love the new flat in Ghent.",  # a statement with its "I" left out
        "Work from home on Fridays now.",
        "Moved the whole team to the Leeds office last week.",
        "Book club is on Thursdays at the library.",
        "Review went well, the panel liked my portfolio.",
        "Help is hard to find for the allotment in summer.",
        "Started a pottery class at the community centre.",
        "My manager asked me to plan the offsite in Porto.",
    ],
)
def test_statements_that_open_like_an_instruction_are_kept(text: str) -> None:
    assert not is_request(text)
    found, _ = _extract(text)
    assert found, text


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("Remind me that Omar's birthday is on 14 March.", "Omar's birthday is on 14 March."),
        ("Please remember that I'm allergic to shellfish.", "I'm allergic to shellfish."),
        ("Can you note that my locker code at the gym is 2719", "my locker code at the gym is 2719"),
        ("Don't forget that our anniversary falls on 9 June.", "our anniversary falls on 9 June."),
        ("Remind me my bike lock combination is 5531.", "my bike lock combination is 5531."),
        (
            "Note to self: the spare key is with Mrs Adeyemi at number 12.",
            "the spare key is with Mrs Adeyemi at number 12.",
        ),
        (
            "Suggest a few lunches for the office, I'm vegetarian since January.",
            "I'm vegetarian since January.",
        ),
        ("Find me a yoga class nearby; we live near Clapham Common.", "we live near Clapham Common."),
        # what the person says of themselves inside a message they ask for is theirs
        ("ok so now draft a reply to Tomasz saying I can't make Friday", "I can't make Friday"),
        # a question or a request tells a statement on its way
        (
            "whats a fair price to sell it for, i ride a 2019 Trek Domane about 50 miles a week",
            "i ride a 2019 Trek Domane about 50 miles a week",
        ),
        (
            "could u write to the letting agent confirming we'll hand back the keys on 30 June",
            "we'll hand back the keys on 30 June",
        ),
        (
            "which plants survive shade, our new garden in Frome faces north?",
            "our new garden in Frome faces north",
        ),
        (
            "Im starting at Wexcombe on the 3rd, what should I wear on day one?",
            "Im starting at Wexcombe on the 3rd",
        ),
        # the deed a question opens with when its subject is left unsaid is the speaker's
        (
            "moved my savings over to Brackwell Mutual in May, is the interest paid monthly?",
            "moved my savings over to Brackwell Mutual in May",
        ),
        (
            "Signed up with Orrel Energy last week, how do I send a meter reading?",
            "Signed up with Orrel Energy last week",
        ),
        (
            "Finally moved the car insurance to Harlow Direct, do they cover breakdown?",
            "Finally moved the car insurance to Harlow Direct",
        ),
    ],
)
def test_a_request_that_carries_a_statement_keeps_the_statement_quoted_exactly(
    text: str, statement: str
) -> None:
    found, _ = _extract(text)
    assert [quote for _, quote in found] == [statement]
    assert statement in text
    (worded, _) = found[0]
    assert not worded.lower().startswith(("remind", "please", "can you", "note", "don't", "suggest", "find"))


def test_through_an_add_a_request_stores_nothing_and_a_reminder_stores_its_fact(mem: Memory) -> None:
    asked = mem.add(
        [{"role": "user", "content": "Help me compare the cost of living in Lyon and Lille.", "time": WHEN}]
    )
    assert asked.added == []
    kept = mem.add(
        [
            {
                "role": "user",
                "content": "Remind me that Priya's birthday is December 3, she hates surprises.",
                "time": WHEN,
            }
        ]
    )
    texts = [d["text"] for d in kept.added]
    assert len(texts) == 1
    assert texts[0].startswith("Priya's birthday is December 3")
    assert not any("Remind" in t or "Help User" in t for t in texts)
    assert mem.search("Lyon Lille cost of living").results  # the request stays findable as a message


@pytest.mark.parametrize(
    "text",
    [
        "how do I get candle wax out of a wool rug",
        "what's a sensible budget for a week in Lisbon",
        "which bike lock is hardest to cut",
        "what plants survive a dark hallway",
        "is there a quicker way to defrost the freezer",
        "should I repot the fig before winter",
        "any tips for a first half marathon",
        # a question that opens with a verb but tells no deed done
        "know any good tilers around Hexham?",
        "need a new kettle, which ones descale easily?",
        "how often should I descale the kettle",
        # asked on a condition said first
        "if I cycle 40 miles a week how many calories is that",
        "If we adopt the greyhound, what size crate should we get",
    ],
)
def test_a_question_typed_without_its_question_mark_gives_no_memory(text: str) -> None:
    found, reasons = _extract(text)
    assert found == []
    assert "a question" in reasons


@pytest.mark.parametrize(
    "text",
    [
        "when I lived in Leeds the buses were always late.",
        "where we live now the rent is half.",
        "If I move to Harrogate I will miss the sea.",  # a condition and what follows from it: no question
        "Check out the scarf I knitted for my niece!",  # a request that tells what the speaker did
    ],
)
def test_a_statement_opening_with_a_question_word_or_telling_a_deed_is_kept(text: str) -> None:
    found, _ = _extract(text)
    assert found, text


def test_a_named_speaker_in_a_conversation_of_people_is_not_asking_the_assistant() -> None:
    said = "Check out the mural on my street for the arts festival!"
    found, _ = extract_with_skips([Message("m1", "user", said, WHEN, "Rosa")])
    assert [c.quote for c in found] == [said]
    alone, reasons = _extract("Draft a speech for the arts festival on my street.")
    assert alone == [] and REQUEST in reasons


def test_an_assistants_question_tells_nothing_of_the_user() -> None:
    """Only the person's own questions carry statements: the assistant asking "so Mr Pell is still your
    landlord?" asserts nothing about them."""
    found, _ = extract_with_skips(
        [
            Message(
                "m1",
                "assistant",
                "So Mr Pell is still your landlord, or did the agency take over?",
                WHEN,
                None,
            )
        ]
    )
    assert [c.quote for c in found] == []
    mine, _ = extract_with_skips(
        [
            Message(
                "m2", "user", "so Mr Pell is still my landlord, do I write to him or the agency?", WHEN, None
            )
        ]
    )
    assert [c.quote for c in mine] == ["Mr Pell is still my landlord"]


@pytest.mark.parametrize(
    "text",
    [
        "help me write the intro — want to show how I went from junior to lead in two years",
        "explain why we moved to Leeds in my bio",
    ],
)
def test_a_deed_of_the_speakers_that_the_request_asks_about_is_no_report(text: str) -> None:
    """ "Check out these kids I met at the shelter" reports a deed and is kept; a deed under how or why is
    what the request is about ("show how I went from …"): the sentence is a request all the same."""
    assert is_request(text)
