"""A retraction and what follows it in one sentence are two statements.

"I quit my job at Acme and joined Globex" says two things: the job at Acme stopped (a retraction,
read by the engine from the quote, core/write/retraction_forms.py) and the speaker joined Globex. As one
candidate the engine reads the retraction and the rest is lost, so :func:`split_after_retraction`
cuts such a sentence where the rest begins: after ", and", " and", " but" (with "then", "now",
"instead" … allowed before it) when what follows starts with a verb ("joined", "bought", "eat",
"work at") or a subject of its own ("… and now I drive a Tesla"), and only when the part before
reads as the same retraction on its own. The later part keeps its exact place in the message; one
without a subject borrows the retraction's for its wording and key ("I" + "joined Globex"). A part
after ", and I …" with no word before "I" is cut by :func:`.text.split_clauses` already. A sentence
that is no retraction is never cut here: "I stopped by the shop and bought milk" and "I sold my old
bike and bought a new one" stay whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

from veramem_desktop.core.write import retraction_forms as retractions
from veramem_desktop.models.llm.rules.lexicon import IRREGULAR_PAST, NOT_PAST
from veramem_desktop.models.llm.rules.text import Span

#: where the rest may begin: ", and", " but", " and then", ", and now instead" …
_JOIN = re.compile(
    r"(?:\s*,\s*|\s+)(?:and|but)\s+(?:(?:then|now|instead|also|later|soon|since|just|recently)\s+)*",
    re.IGNORECASE,
)
#: words after a verb that show it is one ("work at Globex", "drive a Tesla", "love it")
_AFTER_VERB_TEXT = """
    a an the my our his her their your some this that these those at in for with to on from into as
    it them him me us
"""
_AFTER_VERB = frozenset(_AFTER_VERB_TEXT.split())
#: a rest that opens with a subject of its own needs none borrowed ("… and now I drive a Tesla")
_OWN_SUBJECT = re.compile(r"^(?:I|we|he|she|they)(?:['\u2019](?:m|ve|d|re))?\s", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
#: the rest needs a few words of its own to say something ("left" alone does not)
_MIN_REST_WORDS = 2


def split_after_retraction(span: Span) -> list[Span]:
    """``span`` cut after the retraction it opens with, when a statement of its own follows; else
    ``[span]``. The later part's ``subject`` is the retraction's."""
    found = retractions.read(span.text)
    if found is None:
        return [span]
    for m in _JOIN.finditer(span.text):
        left, right = span.text[: m.start()], span.text[m.end() :]
        own = _OWN_SUBJECT.match(right) is not None  # "… and now I drive a Tesla"
        if len(_WORD.findall(right)) < _MIN_REST_WORDS or not (own or _opens_with_verb(right)):
            continue
        if retractions.read(left) != found:
            continue  # the retraction must be whole before the cut ("I stopped smoking and …")
        return [
            Span(span.start, span.start + m.start(), left),
            Span(span.start + m.end(), span.end, right, subject="" if own else found.who),
        ]
    return [span]


def _opens_with_verb(text: str) -> bool:
    """Whether ``text`` starts with a finite verb: an inflected form ("joined", "bought", "drives"),
    a word that is only a verb ("eat"), or a verb that is also a noun when a verb's object or
    preposition follows ("work at …", "drive a …"). Never a gerund ("… and drinking": still the
    retraction's list)."""
    words = [w.lower() for w in _WORD.findall(text)[:2]]
    first, after = words[0], (words[1] if len(words) > 1 else "")
    if first.endswith("ing"):
        return False
    if first in IRREGULAR_PAST or (first.endswith("ed") and len(first) > 3 and first not in NOT_PAST):
        return True
    readings = _readings(first)
    if not readings & {"VERB", "AUX"}:
        return False
    inflected = any(lemma != first for lemma in _verb_lemmas(first))
    return inflected or "NOUN" not in readings or after in _AFTER_VERB


@lru_cache(maxsize=4096)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllLemmas  # loaded on the first retraction read, as the engine's is

    return dict(getAllLemmas(word))


def _readings(word: str) -> set[str]:
    return set(_lemmas(word))


def _verb_lemmas(word: str) -> tuple[str, ...]:
    found = _lemmas(word)
    return (*found.get("VERB", ()), *found.get("AUX", ()))
