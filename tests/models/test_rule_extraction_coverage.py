"""The rule-based extractor's reasons for skipping, replies read through their question, and who a
document's "I" is (issue 18, part 1)."""

from __future__ import annotations

import pytest
from veramem_desktop.core.llm import Message
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.rules.extract import extract_with_skips, skipped_notice


def _m(content: str, role: str = "user", name: str | None = None, id: str = "m1") -> Message:
    return Message(id, role, content, "2024-05-08T10:00:00Z", name)


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("How was your weekend?", "a question"),
        ("Hi!", "too short to state anything"),
        ("That sounds so great.", "a reaction to the other party"),
        ("Sunset over the old bridge!", "an exclamation or fragment with no verb"),
    ],
)
def test_each_skipped_sentence_says_why(sentence: str, reason: str) -> None:
    found, skipped = extract_with_skips([_m(sentence)])
    assert not found and [(s.sentence, s.reason) for s in skipped] == [(sentence, reason)]


@pytest.mark.parametrize(
    "sentence", ["her names Wren, shes a midwife.", "hes a plumber now!", "im off sugar till easter!"]
)
def test_a_short_line_typed_without_apostrophes_has_its_verb(sentence: str) -> None:
    """Chat drops the apostrophe of "he's", "she's", "I'm": the line still states something and is kept."""
    found, skipped = extract_with_skips([_m(sentence)])
    assert found and not skipped, skipped


def test_the_notice_counts_reasons_and_quotes_a_few_sentences_cut_short() -> None:
    _, skipped = extract_with_skips(
        [
            _m(
                "Hi! How are you? What about you? Where were you? Why? "
                + "Really? " * 3
                + "And what did you think of that very long film we saw together at the cinema?"
            )
        ]
    )
    notice = skipped_notice(skipped)
    assert notice is not None and notice.startswith(f"{len(skipped)} sentence(s) gave no memory (")
    assert "more" in notice and "…" not in notice.split(": ", 1)[1][:40]
    assert skipped_notice([]) is None


def test_the_extractions_notice_comes_with_its_reply_and_the_next_reply_has_only_its_own() -> None:
    llm = RuleBasedLLM()
    (notice,) = llm.extract([_m("Hello there! I live in Porto.")]).notices
    assert notice.task == "extract" and '"Hello there!"' in notice.message
    assert llm.extract([_m("I live in Porto.")]).notices == ()


def test_a_question_in_the_context_is_what_the_first_message_replies_to_but_never_a_source() -> None:
    found = (
        RuleBasedLLM()
        .extract(
            [_m("Mostly the old harbour walks.")],
            context=[_m("What do you like most about the city?", role="assistant", id="c1")],
        )
        .value
    )
    assert [(c.message_id, c.text) for c in found] == [
        ("m1", "Mostly the old harbour walks. (in reply to Assistant: What do you like most about the city?)")
    ]


def test_a_statement_with_a_key_stands_alone_without_the_question() -> None:
    found = (
        RuleBasedLLM()
        .extract([_m("Where do you live?", role="assistant", id="a"), _m("I live in Porto.")])
        .value
    )
    assert [c.text for c in found] == ["User lives in Porto."]


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ("I live in Porto.", "The document's author lives in Porto."),
        ("By Ana Lopez\nMy sister lives in Lyon.", "Ana Lopez's sister lives in Lyon."),
    ],
)
def test_a_documents_first_person_is_its_author(content: str, text: str) -> None:
    found = RuleBasedLLM().extract([_m(content, role="document", name="notes.md")]).value
    assert found[-1].text == text and found[-1].subject is None
