"""Fact votes: the memories drawn from turns rank those turns again, for questions that gather.

A question that gathers instances of a kind ("What activities has Ana done with her family?")
finds few of its turns by their words: each turn holds one instance, told in passing ("we went
camping with my fam two weekends ago"), and shares little with the question or with the other
instances. The memories the write path drew from those turns say the same thing plainly, one fact
each ("Ana went camping with her family"), and lie nearer the question's vector. So for such a
question the memories are ranked by the vector the messages' dense channel already asked with
(no second embedding), and the turns each memory cites as evidence, in the order of their best
memory, count as one more episode channel of weight ``SearchConfig.fact_weight``.

What votes is relevance only. The memories are read through the memory access predicate (active,
not rejected, not withheld, the caller's or shared with them) and the turns through the episode
predicate, both in the reads' SQL; the truth stage runs after ranking as for any other channel.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.recall.candidates import Candidates
from veramem_desktop.core.recall.dense import Dense
from veramem_desktop.core.recall.focus import question_kind
from veramem_desktop.core.recall.recipes import MEMORY_KINDS_BY_ROUTE, SearchConfig
from veramem_desktop.core.storage.access import Caller


def cited_order(memories: Sequence[str], cited: Iterable[tuple[str, str]]) -> list[str]:
    """The turns the ranked ``memories`` cite (rows of (memory, turn)), each at the place of the best
    memory citing it, in evidence order within one memory."""
    by_memory: dict[str, list[str]] = {}
    for memory, turn in cited:
        by_memory.setdefault(memory, []).append(turn)
    return list(dict.fromkeys(t for m in memories for t in by_memory.get(m, ())))


def add_channel(
    scores: Mapping[str, float], ranked: Sequence[str], weight: float, k: int
) -> dict[str, float]:
    """``ranked`` as one more reciprocal-rank channel of ``weight``: its r-th id gains ``weight / (k + r)``;
    ids not among ``scores`` become candidates."""
    out = dict(scores)
    for r, d in enumerate(ranked, start=1):
        out[d] = out.get(d, 0.0) + weight / (k + r)
    return out


def fact_votes(
    scores: dict[str, float],
    query: str,
    scope: tuple[Caller, tuple[str, ...], bool, str],
    candidates: Candidates,
    dense: Dense,
    qvec: npt.NDArray[np.float32] | None,
    config: SearchConfig,
    rankings: Mapping[str, Sequence[str]],
) -> dict[str, float]:
    """The turns cited by the memories nearest ``qvec`` (the messages' query vector), fused into
    ``scores`` as one channel of ``config.fact_weight``, when the question's kind is among
    ``config.fact_kinds``; ``scores`` unchanged otherwise. ``scope``: (caller, the route's kinds,
    include_archived, now); ``rankings``: the first hop's, whose memories' dense ranking is used when
    the route made one (nothing is ranked again then)."""
    if config.fact_weight <= 0 or question_kind(query) not in config.fact_kinds:
        return scores
    caller, _, include_archived, moment = scope
    memories = rankings.get("memory:dense")
    if memories is None:
        if qvec is None:
            return scores
        kinds = MEMORY_KINDS_BY_ROUTE["facts"]
        allowed = candidates.allowed_ids("memory", caller, kinds, include_archived, moment)
        memories = dense.rank("memory", qvec, allowed, config.memory_candidates)
    turns = cited_order(memories, candidates.cited_turns(list(memories), caller, moment))
    return add_channel(scores, turns, config.fact_weight, config.rrf_k)
