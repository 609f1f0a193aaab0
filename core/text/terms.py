"""The words of a text as the indexes and the matching rules see them (pure functions, no IO).

Words as the FTS5 tokenizer splits them, the stopwords a query drops, content terms, rule-based
entities (names, numbers, month names) and a rough token count. Storage indexes with them, the write
path keys with them, recall queries with them, trust and the lifecycle match with them.
"""

from __future__ import annotations

import re

# Function words and question words dropped from FTS queries (FTS5 keeps every word, so the
# query side filters). Measured on LoCoMo: dropping the vague verbs and nouns of questions
# ("describe", "kind", "thing", "mention") keeps BM25 on the words that carry the answer.
_STOPWORD_TEXT = """a an the and or but if then else of at by for with about against between into through during before
    after above below to from up down in out on off over under again further once here there when where why how
    all any both each few more most other some such no nor not only own same so than too very s t can will just
    don should now i me my myself we our ours you your yours he him his she her hers it its they them their
    theirs what which who whom whose this that these those am is are was were be been being have has had having
    do does did doing would could might must shall may also ever still yet as much many get got go went going
    like likely kind type sort someone something one thing things way ways lot describe tell mention mentioned
    say said really yeah oh ok okay well"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[\w']+", re.UNICODE)
_CAP = re.compile(r"\b([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
_NUMBER = re.compile(r"\b\d[\d,.:/-]*\b")
_MONTH_TEXT = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_MONTHS = frozenset(_MONTH_TEXT.split())
_QUESTION_TEXT = "what when where who whom whose which why how did does do is are was were"
_QUESTION_WORDS = frozenset(_QUESTION_TEXT.split())
_NOT_ALONE_AT_START = STOPWORDS | _QUESTION_WORDS | {"i", "i'm", "i've"}
#: where a month name can stand as a whole word of :func:`words`: after a word boundary, before a
#: non-word character (an apostrophe splits words) or the end. Case-insensitive matching may also
#: find a look-alike ("\u017fep"), so a match counts only when it lower-cases to a month name.
#: (Written as a tree, led by the first letters: several times faster than a plain alternation.)
_MONTH_TOKEN = re.compile(
    r"(?=[adfjmnos])\b(?:j(?:an(?:uary)?|u(?:ne?|ly?))|feb(?:ruary)?|ma(?:r(?:ch)?|y)"
    r"|a(?:pr(?:il)?|ug(?:ust)?)|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?!\w)",
    re.I,
)


def words(text: str) -> list[str]:
    """Lower-case words as the FTS5 tokenizer sees them: a possessive "'s" is dropped and other
    apostrophes split ("don't" gives "don" and "t"); typographic apostrophes count as "'"."""
    out: list[str] = []
    for raw in _WORD.findall(text.replace("\u2019", "'").replace("\u2018", "'")):
        w = raw.lower().strip("'").removesuffix("'s")
        out.extend(part for part in w.split("'") if part)
    return out


def content_terms(text: str) -> list[str]:
    """Lower-case words that carry meaning (no stopwords), in order, without repeats."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS and (len(w) > 1 or w.isdigit()):
            seen.setdefault(w, None)
    return list(seen)


def entities(text: str) -> set[str]:
    """Names and capitalised phrases (not a sentence's first word alone), numbers, month names."""
    found: set[str] = set()
    for match in _CAP.finditer(text):
        phrase = match.group(1)
        start = match.start(1)
        end = start  # the end of the text before the phrase, trailing whitespace left out
        while end and text[end - 1].isspace():
            end -= 1
        sentence_start = not end or text[end - 1] in '.!?\n:"“'
        parts = phrase.split()
        if sentence_start and len(parts) == 1 and phrase.lower() in _NOT_ALONE_AT_START:
            continue
        for part in parts:
            low = part.lower().replace("\u2019", "'").removesuffix("'s").strip("'")
            if low and low not in STOPWORDS and low not in _QUESTION_WORDS and len(low) > 1:
                found.add(low)
    for number in _NUMBER.findall(text):
        found.add(number.strip(".,"))
    # The months that words(text) would give, without splitting the whole text into words.
    for month in _MONTH_TOKEN.finditer(text):
        low = month.group().lower()
        if low in _MONTHS:
            found.add(low)
    return found


def approx_tokens(text: str) -> int:
    """About how many model tokens ``text`` is: four characters to a token."""
    return max(1, len(text) // 4)
