"""Every word of grammar is a known word, never a name typed in lower case: the lexicon (lemminflect) knows
nouns, verbs, adjectives and adverbs, and core/text/lexicon.py adds the determiners, prepositions and number
words it lacks. Checked against a list kept elsewhere, spaCy's English stop words, so a word of grammar the
two miss shows here."""

from __future__ import annotations

from spacy.lang.en.stop_words import STOP_WORDS
from veramem_desktop.core.text.lexicon import known


def test_every_english_stop_word_is_a_known_word() -> None:
    unknown = sorted(w for w in STOP_WORDS if w.isalpha() and not known(w))
    assert not unknown, unknown


def test_a_name_typed_in_lower_case_is_no_known_word() -> None:
    assert not known("corvel") and not known("brightvale")
