"""lemminflect's English lexicon, loaded once on first use (the write path, recall and the answers
look words up in it)."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def lexicon() -> Any:
    """lemminflect, loaded with the first hit read, never at start-up, and without spaCy: the package
    imports spaCy, when installed, only to register token extensions nothing here uses, which costs
    seconds at a cold start (a one-shot ``veramem search``). While it loads, under the import lock (no
    other thread imports meanwhile), ``spacy`` names a stand-in whose extensions go nowhere."""
    import _imp
    import sys
    from types import SimpleNamespace

    _imp.acquire_lock()
    try:
        if "lemminflect" not in sys.modules and "spacy" not in sys.modules:
            token = SimpleNamespace(set_extension=lambda *_a, **_k: None)
            sys.modules["spacy"] = SimpleNamespace(__version__="3.0", tokens=SimpleNamespace(Token=token))  # type: ignore[assignment]
            try:
                import lemminflect
            finally:
                del sys.modules["spacy"]
        import lemminflect
    finally:
        _imp.release_lock()
    return lemminflect


#: words of grammar that lemminflect's lexicon (nouns, verbs, adjectives, adverbs) lacks: articles and
#: determiners, conjunctions, prepositions and number words. A word the lexicon does not know reads as a name
#: typed in lower case ("leaving corvel"), so these are known too; tests/core/test_lexicon_grammar.py checks
#: them against spaCy's English stop words, so a gap shows as a failing test.
_GRAMMAR_TEXT = """
    a an the every each either neither noone nobody
    and but or nor if unless although whereas because than cannot
    at of for from into onto with during until against upon among amongst beside toward towards thru per
    via amid hereupon whereafter whereupon thereupon ca re
    one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred
"""
GRAMMAR_WORDS = frozenset(_GRAMMAR_TEXT.split())


def known(word: str) -> bool:
    """Whether ``word`` (lower case) is a word of English, not a name: the lexicon knows it (a name mostly
    is not in it), or it is a word of grammar (:data:`GRAMMAR_WORDS`)."""
    return word in GRAMMAR_WORDS or bool(lexicon().getAllLemmas(word))
