"""Tellings: the turns in which a speaker tells what happened to them rank above replies.

A conversation holds two kinds of turn. In one, a person tells of their own life: something they did
or that happened to them, in the first person and with a past verb or a time ("Yesterday I took the
kids to the museum", "we went camping last weekend"). In the other, they answer the listener: they
praise, ask or comment on what the listener said ("Wow, that painting is awesome! What inspired
you?"). A question about what someone did, had or went through is answered by the first kind, yet
the second often shares more of its words: the reply repeats the listener's topic back to them.
That matters most for questions whose answer is spread over several turns ("What has Ana painted?",
"What activities…"), where every slot of the top k spent on a reply is an instance missed.

So among the best ``SearchConfig.telling_top`` candidate turns, the tellings, in their fused order,
count as one more episode channel of weight ``SearchConfig.telling_weight`` (0 turns it off). A
telling is read from the words alone (English, as the rule-based model reads): a first-person word
("I", "my", "we", "our"…), no more second-person words ("you", "your") than first-person ones, and an
event marker, a time ("yesterday", "last week", "two days ago", "just") or a first-person past
verb ("I went", "we finally took"). It reorders only turns the channels found: the texts are read
through the episode access predicate (core/recall/candidates.py), and the truth stage runs after, as
for every channel.

The fact votes (core/recall/fact_votes.py) run just before, so :func:`votes` runs both passes
that act on the fused ranking of the turns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.recall.candidates import Candidates
from veramem_desktop.core.recall.dense import Dense
from veramem_desktop.core.recall.fact_votes import add_channel, fact_votes
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage.access import Caller

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_FIRST_TEXT = "i me my mine myself we us our ours ourselves i'm i've i'd i'll we're we've we'd we'll"
_SECOND_TEXT = "you your yours yourself yourselves ya you're you've you'd you'll"
#: words that place what is told in time on their own, and those that do after "last" or "this (past)"
_WHEN_TEXT = "yesterday today tonight recently lately just ago"
_UNIT_TEXT = "day night week weekend month year summer winter spring fall autumn morning evening"
_DAY_TEXT = "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri sat sun"
#: one adverb may stand between the subject and its verb ("we finally took")
_ADVERB_TEXT = "just finally recently also actually really even once already"
_PAST_TEXT = (
    "went took got made did had saw met ran won gave found was were began bought brought came felt built "
    "drew wrote read sang swam left lost kept taught told heard held sold spent thought caught fell flew "
    "grew knew rode wore ate drove sent became chose threw been"
)
_FIRST = frozenset(_FIRST_TEXT.split())
_SECOND = frozenset(_SECOND_TEXT.split())
_WHEN = frozenset(_WHEN_TEXT.split())
_UNITS = frozenset(unit + plural for unit in _UNIT_TEXT.split() for plural in ("", "s"))
_DAYS = frozenset(_DAY_TEXT.split())
_ADVERBS = frozenset(_ADVERB_TEXT.split())
_PAST_VERBS = frozenset(_PAST_TEXT.split())


@lru_cache(maxsize=8192)
def is_telling(text: str) -> bool:
    """Whether a turn tells of its speaker's own life: a first-person word, no more second-person words
    than first-person ones, and a time or a first-person past verb ("I went", "we finally took", "I've
    been"). Read word by word (no backtracking pattern: the channel reads up to ``telling_top`` turns
    per search)."""
    words = _WORD.findall(text.lower().replace("\u2019", "'"))
    first = sum(w in _FIRST for w in words)
    if not first or sum(w in _SECOND for w in words) > first:
        return False
    return _has_time(words) or _has_past(words)


def _has_time(words: list[str]) -> bool:
    """A time word, "last week"/"last Friday", "this (past) weekend", or "since we last"."""
    for i, w in enumerate(words):
        if w in _WHEN:
            return True
        after = words[i + 1 : i + 3]
        if w == "this" and after[:1] == ["past"]:
            after = after[1:]
        if w in ("last", "this") and after and (after[0] in _UNITS or (w == "last" and after[0] in _DAYS)):
            return True
        if w == "since" and after == ["we", "last"]:
            return True
    return False


def _has_past(words: list[str]) -> bool:
    """A first-person subject ("I", "we", "I've", "we have"), at most one adverb, then a past verb."""
    for i, w in enumerate(words):
        if w not in ("i", "we", "i've", "we've"):
            continue
        j = i + 1
        if w in ("i", "we") and j < len(words) and words[j] == "have":
            j += 1
        if j < len(words) and words[j] in _ADVERBS:
            j += 1
        if j < len(words) and _past(words[j]):
            return True
    return False


def _past(word: str) -> bool:
    return word in _PAST_VERBS or (len(word) > 2 and word.endswith("ed") and "'" not in word)


def tellings(order: Sequence[str], texts: Mapping[str, str]) -> list[str]:
    """The ids of ``order`` (best first) whose text in ``texts`` is a telling, in that order."""
    return [d for d in order if d in texts and is_telling(texts[d])]


def telling_channel(
    scores: dict[str, float],
    scope: tuple[Caller, tuple[str, ...], bool, str],
    candidates: Candidates,
    config: SearchConfig,
) -> dict[str, float]:
    """The tellings among the best ``config.telling_top`` turns of ``scores``, fused as one channel of
    ``config.telling_weight``; ``scores`` unchanged at weight 0."""
    if config.telling_weight <= 0:
        return scores
    caller, _, _, moment = scope
    top = sorted((d for d in scores if d.startswith("ep_")), key=lambda d: (-scores[d], d))[
        : config.telling_top
    ]
    texts = candidates.texts("episode", top, caller, False, moment)
    return add_channel(scores, tellings(top, texts), config.telling_weight, config.rrf_k)


def votes(
    scores: dict[str, float],
    query: str,
    scope: tuple[Caller, tuple[str, ...], bool, str],
    dense: Dense,
    qvec: npt.NDArray[np.float32] | None,
    config: SearchConfig,
    rankings: Mapping[str, Sequence[str]],
    use: set[str],
) -> dict[str, float]:
    """The passes over the turns' fused ranking, each where it is in use: the fact votes
    (core/recall/fact_votes.py), then the tellings. ``dense`` is the first hop's dense channel (its
    candidate reads are the ones every channel uses)."""
    if "fact_votes" in use:
        scores = fact_votes(scores, query, scope, dense.candidates, dense, qvec, config, rankings)
    if "telling" in use:
        scores = telling_channel(scores, scope, dense.candidates, config)
    return scores
