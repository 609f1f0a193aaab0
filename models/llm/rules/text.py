"""Text helpers shared by the rule-based tasks: sentences with exact spans, words, stems."""

from __future__ import annotations

import re
from dataclasses import dataclass

_STOPWORDS_TEXT = """
    a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
    don't down during each even ever few for from further get gets got had hadn't has hasn't have
    haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd
    i'll i'm i've if in into is isn't it it's its itself just let's like me more most much must
    mustn't my myself no nor not now of off on once only or other ought our ours ourselves out over
    own really same shan't she she'd she'll she's should shouldn't so some such than that that's the
    their theirs them themselves then there there's these they they'd they'll they're they've this
    those through to too under until up very was wasn't we we'd we'll we're we've were weren't what
    what's when when's where where's which while who who's whom why why's will with won't would
    wouldn't you you'd you'll you're you've your yours yourself yourselves still yet already ever
    anyway anymore thing things something anything lot lots kind sort bit one ones im ive id ill
    dont didnt doesnt cant wont isnt wasnt arent
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_ABBREVIATIONS_TEXT = """
    mr mrs ms dr prof st jr sr vs etc e.g i.e a.m p.m approx no fig inc ltd co mt ft jan feb mar apr
    jun jul aug sep sept oct nov dec u.s u.k
"""
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())
#: where a sentence ends: its closing punctuation, a line break, or an emoji said before a space (chat closes
#: a thought with one: "Gareth left for a competitor 👋 new boss is Deepa"), which stays with its sentence
_BOUNDARY = re.compile(
    r"[.!?…]+['\"”’)\]]*(?=\s|$)|[\U0001F300-\U0001FAFF\u2600-\u27BF][\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F\u200D\U0001F3FB-\U0001F3FF]*(?=\s)|\n+"
)
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
NEGATION = re.compile(
    r"\bno longer\b|\bnot any ?more\b|(?:n't|n’t|\bnot|\bnever)\b[^.!?]*\bany ?more\b|\bno more\b"
    r"|\b(?:stopped|quit|gave up)\s+\w+ing\b|\bgave up\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Span:
    """A sentence and where it sits in its text: ``text == source[start:end]``. ``subject``: the subject
    a clause that has none borrows from the clause before it, for its wording and key ("joined Globex"
    after "I quit my job at Acme" is worded as "I joined Globex"; models/llm/rules/retraction_clauses.py)."""

    start: int
    end: int
    text: str
    subject: str = ""

    @property
    def said(self) -> str:
        """The clause as a statement of its own: with its borrowed subject, if any."""
        return f"{self.subject} {self.text}" if self.subject else self.text


def split_sentences(text: str) -> list[Span]:
    """Sentences with exact offsets, so a sentence can be quoted verbatim."""
    spans: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group(0)[0] == "." and _ends_with_abbreviation(text[start : m.start()]):
            continue
        _append(spans, text, start, m.end() if m.group(0)[0] != "\n" else m.start())
        start = m.end()
    _append(spans, text, start, len(text))
    return spans


# Where one sentence holds two statements of the speaker's: "…, and I work at Tessera", "…; my sister …".
_CLAUSE_BREAK = re.compile(
    r"(?:,\s*|\s+)(?:and|but|while)\s+(?=(?:I|I'm|I've|I'd|I'll|[Mm]y|[Ww]e|[Ww]e're|[Ww]e've|[Oo]ur)\b)"
    r"|;\s+(?=\S)"
)
_CLAUSE_MIN_WORDS = 3
# The earlier part must be a statement of its own, with the speaker as a subject ("My sister Ana
# and my aunt came" is one statement about two people).
_SPEAKER_SUBJECT = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Ww]e|[Ww]e're|[Ww]e've)\b")
# A later part pointing back ("… and I watch them daily") stays with what it points to; a demonstrative
# before a time ("… and I eat fish these days") points at no earlier words.
_POINTS_BACK = re.compile(
    r"\b(?:it|its|them|they|their|he|him|his|she|her|there|one)\b"
    r"|\b(?:that|this|those|these)\b(?!\s+(?:days?|weeks?|months?|years?|mornings?|evenings?|nights?|"
    r"afternoons?|weekends?|times?|spring|summer|autumn|fall|winter|season)\b)",
    re.IGNORECASE,
)


def split_clauses(span: Span) -> list[Span]:
    """A sentence cut where a second statement of the speaker's begins ("I moved to Lisbon in
    March and I work at Tessera."), each part at least three words and exactly where it was;
    never before a part that points back ("… and I watch them daily")."""
    parts: list[Span] = []
    start = span.start
    for m in _CLAUSE_BREAK.finditer(span.text):
        left = span.text[start - span.start : m.start()]
        right = span.text[m.end() :]
        if (
            len(_WORD.findall(left)) >= _CLAUSE_MIN_WORDS
            and len(_WORD.findall(right)) >= _CLAUSE_MIN_WORDS
            and _SPEAKER_SUBJECT.search(left)
            and not _POINTS_BACK.search(right)
        ):
            parts.append(Span(start, span.start + m.start(), left))
            start = span.start + m.end()
    if not parts:
        return [span]
    parts.append(Span(start, span.end, span.text[start - span.start :]))
    return parts


def _ends_with_abbreviation(before: str) -> bool:
    last = before.rsplit(None, 1)[-1].lower() if before.strip() else ""
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def _append(spans: list[Span], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append(Span(start, end, text[start:end]))


def words(text: str) -> list[str]:
    """Lowercased words, keeping contractions together (``don't``); curly apostrophes made straight."""
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def stem(word: str) -> str:
    """A light stemmer: enough for "moved"/"moving"/"moves" and "favourite"/"favorite" to meet."""
    w = word.lower().replace("'", "")
    w = re.sub(r"our(ite|s|ed|ing)?$", r"or\1", w) if len(w) > 5 else w
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
        if len(w) > 2 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
    elif len(w) > 3 and w.endswith("ly"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
        if w.endswith("e") and len(w) > 3:
            w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """Words that carry meaning: not stopwords, not single letters."""
    return [w for w in words(text) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())]


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def is_negated(text: str) -> bool:
    """Whether the text says something stopped being true ("no longer", "not … anymore")."""
    return NEGATION.search(text) is not None
