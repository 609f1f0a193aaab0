"""A text the assistant writes for the person to send speaks in the person's voice: its "I" is the person,
never the assistant, and its "you" is whoever it goes to (models/llm/rules/drafts.py). The draft stays the
assistant's claim: only the wording of whose words they are changes, and it gives no key. Every message
here is written for these tests."""

from __future__ import annotations

import pytest
from veramem_desktop.core.llm import Message
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.rules import drafts

DAY = "2024-05-08T13:56:00+00:00"

LETTER = (
    "Of course, here's a short version:\n\n"
    "Dear Harwick Lettings,\n\n"
    "I am writing to let you know that my partner and I will leave 9 Quill Street at the end of June.\n\n"
    "Kind regards,\nEsme Calloway\n\n"
    "You can send it by recorded post if you like."
)


def _texts(content: str) -> list[tuple[str, str | None]]:
    messages = [
        Message(id="u1", role="user", content="Could you write a note to my letting agent?", time=DAY),
        Message(id="a1", role="assistant", content=content, time=DAY),
    ]
    found = RuleBasedLLM().extract(messages).value
    return [(c.text, c.predicate) for c in found if c.message_id == "a1"]


def test_a_letter_the_assistant_drafts_speaks_for_the_person_and_its_framing_stays_the_assistants() -> None:
    texts = _texts(LETTER)
    letter = next(t for t, _ in texts if "Quill Street" in t)
    assert letter.startswith("User will leave 9 Quill Street"), letter
    assert "Assistant" not in " ".join(t for t, _ in texts)
    # the assistant's own word to the person after the letter is said to the person, as before
    after = next(t for t, _ in texts if "recorded post" in t)
    assert after.startswith("User can send"), after
    assert all(predicate is None for _, predicate in texts)  # a claim worded, never a key


@pytest.mark.parametrize(
    ("content", "drafted"),
    [
        # a quoted message in the first person
        (
            'Try this: "Hi! I\'ve changed banks, so the rent now comes from my Tallis account."',
            "changed banks",
        ),
        # a letter opened by its subject line and never signed
        ("Subject: New address\n\nHello, please send my post to 4 Fenn Row from May.", "Fenn Row"),
        # a letter signed by a name alone on its line
        ("Hi all,\n\nToday is my last day at Orrick Freight.\n\nIlse\n\nGood luck!", "Orrick Freight"),
    ],
)
def test_a_draft_is_found_by_its_form(content: str, drafted: str) -> None:
    spans = drafts.regions(content)
    at = content.index(drafted)
    assert drafts.within(spans, at), (spans, content)


def test_the_assistant_greeting_the_person_is_no_draft() -> None:
    reply = "Hi Esme,\n\nCongratulations on the new flat! I would start with the boxes for the kitchen."
    assert drafts.regions(reply) == []
    # quoted words with no first person are no draft ("Riptide" is a song)
    assert drafts.regions('You could learn "Riptide" or "Stand By Me" next.') == []


def test_a_quoted_message_is_the_persons_from_its_opening_quote_mark() -> None:
    """The first sentence of a quoted draft starts at the quote mark: it is in the draft too."""
    texts = _texts(
        '"Hi, just so you know I\'ve changed banks, so rent now comes from my Tallis account. Thanks!"'
    )
    first = next(t for t, _ in texts if "changed banks" in t)
    assert "User has changed banks" in first and "User's Tallis account" in first, first
