"""Speaker focus: what one person said, ranked on its own, for questions that gather or suppose.

Two kinds of question about one named speaker need that person's own turns more than any turn
that shares the question's words:

- a *gathering* question asks for every instance of a kind ("What activities does Ana do?", "Which
  books has she read?", "How many times…?"): its evidence is spread over turns that each hold one
  instance, and the best of them rarely share a word with each other;
- a *supposing* question asks what a person would do or be ("Would Ana move abroad?", "What would
  she likely…?"): its evidence is what that person said about themselves on the topic.

For these, the first hop's BM25 and dense rankings, kept to the named speaker's turns, count as
channels of their own (weights per kind in ``SearchConfig.focus_weights``), so that person's best
matches climb above the other speaker's. The rankings are the channels' own (their SQL carries the
access predicate); nothing is read here that the first hop did not rank. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

_GATHER = re.compile(
    r"\bhow many\b|\bsome\b|\bboth\b|\bways\b|\b(?:kinds?|types?|sorts?) of\b|\bwhere (?:has|have)\b", re.I
)
_WH_NOUN = re.compile(r"^\s*(?:what|which|where|who)\s+([a-z+/-]+)", re.I)
#: the noun phrase between what/which and the verb that follows it ("What martial arts has…", "Which
#: European countries did…"): up to four words, the last of which is its head
_AUX = r"(?:has|have|had|does|do|did|is|are|was|were|can|could|will|should)\b"
_WH_PHRASE = re.compile(rf"^\s*(?:what|which)\s+(?!{_AUX})((?:[\w+/'-]+\s+){{0,3}}?[\w+/'-]+)\s+{_AUX}", re.I)
_NOT_PLURAL = frozenset({"does", "has", "was"})
_SUPPOSE = re.compile(r"\b(?:would|likely)\b|^\s*(?:could|might)\b", re.I)


@lru_cache(maxsize=1024)
def question_kind(question: str) -> str | None:
    """ "gather" for a question asking for instances of a kind (a plural after what/which, or heading the
    noun phrase they open: "What martial arts has…"; "how many", "what kinds of", "some", "both"),
    "suppose" for one asking what someone would do or be, else None. Cached: speaker focus and the fact
    votes ask it of the same question."""
    if _SUPPOSE.search(question):
        return "suppose"
    if _GATHER.search(question):
        return "gather"
    m = _WH_NOUN.match(question)
    if m and _plural(m.group(1)):
        return "gather"
    m = _WH_PHRASE.match(question)
    if m and any(_plural(part) for part in m.group(1).split()[-1].split("/")):
        return "gather"
    return None


def _plural(word: str) -> bool:
    """Whether ``word`` reads as an English plural ("arts", "countries"; not "class", "status", "does")."""
    word = word.lower()
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NOT_PLURAL


def focus(
    scores: Mapping[str, float],
    rankings: Mapping[str, Sequence[str]],
    speaker_of: Mapping[str, str | None],
    named: str,
    weights: Mapping[str, float],
    k: int,
) -> dict[str, float]:
    """Each ranking of ``rankings`` (channel -> ids, best first) kept to the turns ``named`` spoke
    (case-insensitive) counts as one more channel of ``weights[channel]``: its r-th turn gains
    ``weight / (k + r)``. Turns not among ``scores`` become candidates."""
    who = named.casefold()
    out = dict(scores)
    for channel, ranked in rankings.items():
        weight = weights.get(channel, 0.0)
        if weight <= 0:
            continue
        own = [d for d in ranked if (speaker_of.get(d) or "").casefold() == who]
        for r, d in enumerate(own, start=1):
            out[d] = out.get(d, 0.0) + weight / (k + r)
    return out
