"""Rank fusion and ranking priors (pure functions)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RRF_K = 60


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
    trust_bonus = {"verified": 0.02, "candidate": 0.0}.get(trust, -1.0)
    strength = 0.02 * (min(max(retrieval_strength, 0.0), 1.0) - 1.0)
    return utility_lambda * (utility_value - 0.5) + recency + trust_bonus + strength
