"""Rank fusion and ranking priors (pure functions)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from veramem_desktop.core.vocabulary import Trust

RRF_K = 60
#: the prior a memory's review state adds; any other trust (rejected) takes a whole point off
_TRUST_BONUS: dict[str, float] = {Trust.VERIFIED: 0.02, Trust.CANDIDATE: 0.0}


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float] | None = None, k: int = RRF_K
) -> dict[str, float]:
    """Reciprocal rank fusion: ``sum_c w_c / (k + rank_c(d))`` with ranks starting at 1."""
    scores: dict[str, float] = {}
    for channel, ranked in rankings.items():
        w = 1.0 if weights is None else float(weights.get(channel, 1.0))
        if w == 0.0:
            continue
        for rank, doc in enumerate(ranked, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return scores


def max_rrf(weights: Mapping[str, float], channels: Sequence[str], k: int = RRF_K) -> float:
    """The best score a document can get from ``channels`` (used to put RRF on a 0–1 scale)."""
    return sum(float(weights.get(c, 1.0)) for c in channels) / (k + 1) or 1.0


def speaker_bonus(
    scores: Mapping[str, float],
    speaker_of: Mapping[str, str | None],
    named: str,
    weight: float,
    k: int = RRF_K,
) -> dict[str, float]:
    """The speaker rule: every candidate spoken by ``named`` (compared case-insensitively)
    counts as ranked first in one more channel of this weight, i.e. gains ``weight / (k + 1)``."""
    who = named.casefold()
    bonus = weight / (k + 1)
    return {d: s + (bonus if (speaker_of.get(d) or "").casefold() == who else 0.0) for d, s in scores.items()}


def expand_neighbours(
    scores: Mapping[str, float], neighbours: Mapping[str, Sequence[str]], decay: float
) -> dict[str, float]:
    """Each document passes ``decay`` times its score to its neighbours (the adjacent turns of
    its session); a document keeps the largest gift it gets, added to its own score. Neighbours
    that were not candidates become candidates."""
    gift: dict[str, float] = {}
    for doc, s in scores.items():
        for nb in neighbours.get(doc, ()):
            gift[nb] = max(gift.get(nb, 0.0), decay * s)
    out = dict(scores)
    for doc, g in gift.items():
        out[doc] = out.get(doc, 0.0) + g
    return out


def utility(successes: float, failures: float) -> float:
    return (successes + 1.0) / (successes + failures + 2.0)


def prior(
    *,
    utility_value: float,
    age_days: float,
    trust: str,
    retrieval_strength: float,
    utility_lambda: float,
    recency_weight: float,
    recency_half_life_days: float = 180.0,
) -> float:
    """The additive prior on a 0–1 relevance scale: utility, mild recency, trust, reachability."""
    recency = recency_weight * math.exp(-max(age_days, 0.0) * math.log(2) / recency_half_life_days)
    trust_bonus = _TRUST_BONUS.get(trust, -1.0)
    strength = 0.02 * (min(max(retrieval_strength, 0.0), 1.0) - 1.0)
    return utility_lambda * (utility_value - 0.5) + recency + trust_bonus + strength
