"""Query and text analysis for search (pure functions, no IO).

Tokens for FTS5 queries, content terms, rule-based entities (names, numbers,
dates), granularity routing and temporal intent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STOPWORDS = frozenset(
    """a an the and or but if then of at by for with about against between into through during before after
    above below to from up down in out on off over under again further once here there when where why how all any
    both each few more most other some such no nor not only own same so than too very s t can will just don should
    now i me my myself we our ours you your yours he him his she her hers it its they them their what which who whom
    this that these those am is are was were be been being have has had having do does did doing would could
    also get got ever much many really like yeah oh ok okay well""".split()
)
_WORD = re.compile(r"[\w']+", re.UNICODE)
_CAP = re.compile(r"\b([A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)*)")
_NUMBER = re.compile(r"\b\d[\d,.:/-]*\b")
_MONTHS = ("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec").split()
_QUESTION_WORDS = frozenset("what when where who whom whose which why how did does do is are was were".split())


def words(text: str) -> list[str]:
    return [w.lower().strip("'") for w in _WORD.findall(text) if w.strip("'")]


def content_terms(text: str) -> list[str]:
    """Lower-case words that carry meaning (no stopwords), in order, without repeats."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS and (len(w) > 1 or w.isdigit()):
            seen.setdefault(w, None)
    return list(seen)


def fts_query(text: str, *, max_terms: int = 32) -> str | None:
    """An FTS5 MATCH expression: the content terms OR-ed, each quoted (no syntax injection)."""
    terms = content_terms(text)[:max_terms]
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def entities(text: str) -> set[str]:
    """Names and capitalised phrases (not a sentence's first word alone), numbers, month names."""
    found: set[str] = set()
    for match in _CAP.finditer(text):
        phrase = match.group(1)
        start = match.start(1)
        before = text[:start].rstrip()
        sentence_start = not before or before[-1] in ".!?\n:\"“"
        parts = phrase.split()
        if sentence_start and len(parts) == 1 and phrase.lower() in STOPWORDS | _QUESTION_WORDS:
            continue
        if sentence_start and len(parts) == 1 and phrase.lower() in _QUESTION_WORDS | {"i", "i'm", "i've"}:
            continue
        for part in parts:
            low = part.lower().strip("'s").strip("'")
            if low and low not in STOPWORDS and low not in _QUESTION_WORDS and len(low) > 1:
                found.add(low)
    for number in _NUMBER.findall(text):
        found.add(number.strip(".,"))
    for w in words(text):
        if w in _MONTHS:
            found.add(w)
    return found


Route = str  # "facts" | "raw" | "summaries" | "dual"

_RAW = re.compile(r"\b(exact(ly)?|verbatim|word for word|quote|what did (i|you|he|she|they) (say|write|tell)|"
                  r"said|mentioned|told)\b", re.I)
_SUMMARY = re.compile(r"\b(summar(y|ise|ize)|overall|overview|in general|recap|gist|big picture)\b", re.I)
_JOIN = re.compile(r"\b(and|both|compare|between|versus|vs\.?|together|also)\b", re.I)


def route_for(query: str) -> Route:
    """Rule-based granularity routing: no model call."""
    if _SUMMARY.search(query):
        return "summaries"
    if _RAW.search(query):
        return "raw"
    names = {e for e in entities(query) if not e[0].isdigit()}
    if len(names) >= 2 or _JOIN.search(query):
        return "dual"
    return "facts"


@dataclass(frozen=True)
class TemporalIntent:
    kind: str | None  # None | "latest" | "when" | "since" | "before"
    phrase: str | None = None  # the time expression after since/before/after


_LATEST = re.compile(r"\b(latest|most recent(ly)?|newest|current(ly)?|now|last time|these days)\b", re.I)
_WHEN = re.compile(r"\b(when|what (date|day|year|month|time)|how long ago|what year)\b", re.I)
_SINCE = re.compile(r"\b(since|after)\s+(.+?)(\?|$|,)", re.I)
_BEFORE = re.compile(r"\b(before|until|prior to)\s+(.+?)(\?|$|,)", re.I)


def temporal_intent(query: str) -> TemporalIntent:
    if m := _SINCE.search(query):
        return TemporalIntent("since", m.group(2).strip())
    if m := _BEFORE.search(query):
        return TemporalIntent("before", m.group(2).strip())
    if _LATEST.search(query):
        return TemporalIntent("latest")
    if _WHEN.search(query):
        return TemporalIntent("when")
    return TemporalIntent(None)


def context_text(prev: str | None, current: str, nxt: str | None, *, budget: int = 1200) -> str:
    """A turn with its neighbours, for the context-enriched vector. The turn itself comes first."""
    parts = [current]
    if prev:
        parts.append(prev[: budget // 3])
    if nxt:
        parts.append(nxt[: budget // 3])
    return "\n".join(parts)[: budget * 2]
