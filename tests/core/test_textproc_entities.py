"""entities() finds month names without splitting the whole text into words (sync applies it to every
synced episode and memory): its output must stay exactly what the word-split version gave."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.text.terms import _MONTHS, _QUESTION_WORDS, STOPWORDS, entities, words

from veramem_desktop.bench.sentences import fact_sentences

_CAP = re.compile(r"\b([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
_NUMBER = re.compile(r"\b\d[\d,.:/-]*\b")


def entities_by_word_split(text: str) -> set[str]:
    """entities() as it was before: every word of the text checked against the month names."""
    found: set[str] = set()
    for match in _CAP.finditer(text):
        phrase = match.group(1)
        start = match.start(1)
        before = text[:start].rstrip()
        sentence_start = not before or before[-1] in '.!?\n:"“'
        parts = phrase.split()
        if sentence_start and len(parts) == 1 and phrase.lower() in STOPWORDS | _QUESTION_WORDS:
            continue
        if sentence_start and len(parts) == 1 and phrase.lower() in _QUESTION_WORDS | {"i", "i'm", "i've"}:
            continue
        for part in parts:
            low = part.lower().replace("\u2019", "'").removesuffix("'s").strip("'")
            if low and low not in STOPWORDS and low not in _QUESTION_WORDS and len(low) > 1:
                found.add(low)
    for number in _NUMBER.findall(text):
        found.add(number.strip(".,"))
    for w in words(text):
        if w in _MONTHS:
            found.add(w)
    return found


CORPUS = [
    "We moved to Lisbon in March 2021.",
    "may I ask what you did in May?",
    "MAY the fourth be with you; it was a DECEMBER night.",
    "Maybe in mayonnaise season, around Marchand's shop, we mayflower'd.",
    "The meeting is on 3 sept, or Sept. 12, or september 30th, or SEP-2023.",
    "It's jan's birthday; Jan’s party is on the 5th of Jan.",
    "june'jul'aug were hot; 'oct' and \u2018nov\u2019 were not; dec's snow came.",
    "Remember: April showers bring May flowers.\nOctober: harvest.",
    "x_may 5may may5 _dec dec_ mar-apr apr/jun feb.mar",
    "\u017fep and \u212aelvin and \u0130stanbul in \u0130june and ju\u0130ne are look-alikes.",
    'She said "March on" and marched on; the March Hare laughed.',
    "I'm sure I've seen Alice and Bob Smith at the Blue Lagoon on 2023-05-07 at 10:30.",
    "nothing here names a month or a Name",
    "",
    "   ",
    "AUGUST! august? August... aug.",
    "mar's marsh, nov'ember, no-vember, nov\u2019s novel",
    "Decembers and Mays and Junes are plurals, not months.",
    "what did Caroline say about the Pride parade last June?",
    "Janet and Marco met on a Monday in Jul 2019 near Mayfair.",
]


def test_entities_match_the_word_split_version_over_a_varied_corpus() -> None:
    texts = CORPUS + fact_sentences(400) + [" ".join(CORPUS)]
    for text in texts:
        assert entities(text) == entities_by_word_split(text), text


def test_entities_still_find_months_in_any_case_and_position() -> None:
    assert {"may", "december"} <= entities("MAY the fourth, a december night")
    assert "sept" in entities("on 3 Sept.")
    assert "jan" in entities("it is jan's turn")
    assert not {"may", "mar", "dec"} & entities("maybe a market decision")


_PIECES = st.sampled_from(
    sorted(_MONTHS)
    + [m.upper() for m in _MONTHS]
    + [m.title() for m in _MONTHS]
    + [
        "'",
        "\u2019",
        "\u2018",
        "'s",
        " ",
        "\n",
        ".",
        "-",
        "_",
        "5",
        "x",
        "be",
        "I",
        "Alice",
        "\u017f",
        "\u212a",
        "\u0130",
        "e",
        "ber",
        "uary",
        "?",
        ":",
        '"',
        "\u201c",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_entities_match_the_word_split_version_on_generated_text(text: str) -> None:
    assert entities(text) == entities_by_word_split(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_entities_match_the_word_split_version_on_any_text(text: str) -> None:
    assert entities(text) == entities_by_word_split(text)


def test_every_month_name_is_found_as_a_word_in_each_case() -> None:
    for month in _MONTHS:
        for written in (month, month.upper(), month.title()):
            assert month in entities(f"It was {written} 3, or ({written}), or {written}'s end."), written
