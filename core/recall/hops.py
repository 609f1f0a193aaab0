"""The second hop of recall: what the first hop found asks again.

A question whose answer is spread over several messages ("What are Ana's pets' names?") often
finds one of them ("we got another cat named Bailey. Here's a pic of Oliver") while the others
share no word with the question, only with that message ("Luna and Oliver!"). The second hop
reads the best candidates of the first (the *seeds*), takes what they carry that the question did
not (the names they mention, and the words that several of them share or that are rare in the
store), and ranks again:

- full text on the question's words plus those words;
- the entity index on those names;
- embeddings on the question's vector moved towards the seeds' (Rocchio's relevance feedback);
- with a model, a follow-up question it writes from the seeds, through full text and embeddings.

The rankings are fused into one more channel of weight ``hop_weight``. Every ranking is made by
the channels' own SQL, so the access predicate holds in each one, and what comes out is relevance
only: the truth stage runs after it as after the first hop. The pure parts (choosing the words and
names, moving the vector) are here; the channels run the queries (core/recall/lexical.py and
core/recall/dense.py, handed in by core/recall/channels.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.recall.dense import Dense
from veramem_desktop.core.recall.lexical import Lexical
from veramem_desktop.core.storage.access import Sight
from veramem_desktop.core.text.terms import STOPWORDS, content_terms, entities

#: a model's follow-up question: (question, what the first hop found) -> a question, or None
FollowUp = Callable[[str, Sequence[str]], "str | None"]


@dataclass(frozen=True)
class Expansion:
    """What the seeds carry that the question did not: words and names to rank by."""

    terms: tuple[str, ...]
    names: tuple[str, ...]


def expand(
    question: str,
    seeds: Sequence[str],
    *,
    drop: frozenset[str],
    df: Callable[[str], int],
    rows: int,
    max_terms: int,
    max_names: int,
    name_df: Callable[[str], int],
    max_name_df: int,
) -> Expansion:
    """The words and names of ``seeds`` (best first) worth asking again with.

    A word scores by the seeds that hold it (a seed's share falls with its rank: 1/(1+r)) times its
    rarity in the store (idf from ``df`` over ``rows``), so a word that one seed shares with others,
    or a rare one in the best seed, leads; words of the question and ``drop`` (speakers' names) are
    left out. Names are ranked the same way and kept while no more than ``max_name_df`` rows carry them.
    """
    asked = set(content_terms(question)) | {e.casefold() for e in entities(question)} | drop
    term_weight: dict[str, float] = {}
    name_weight: dict[str, float] = {}
    for r, text in enumerate(seeds):
        share = 1.0 / (1 + r)
        for t in content_terms(text):
            if t not in asked and not t.isdigit() and len(t) > 2:
                term_weight[t] = term_weight.get(t, 0.0) + share
        for e in names_in_text(text):
            if e not in asked:
                name_weight[e] = name_weight.get(e, 0.0) + share
    scored: list[tuple[float, str]] = []
    for t, w in term_weight.items():
        n = df(t)
        if 0 < n < rows:
            scored.append((w * math.log((rows + 1) / n), t))
    scored.sort(key=lambda x: (-x[0], x[1]))
    names = sorted(name_weight, key=lambda e: (-name_weight[e], e))
    kept = [e for e in names[: 3 * max_names] if 0 < name_df(e) <= max_name_df][:max_names]
    return Expansion(tuple(t for _, t in scored[:max_terms]), tuple(kept))


_NAME = re.compile(r"[A-Z][a-z]+(?:[-'][A-Za-z]+)*")


def names_in_text(text: str) -> set[str]:
    """Names a text mentions: capitalised words inside a sentence (a sentence's first word, an "I'm" or
    a "Thanks" is capitalised for another reason), lower-cased, possessive dropped."""
    found: set[str] = set()
    for m in _NAME.finditer(text):
        before = text[: m.start()].rstrip()
        if not before or before[-1] in '.!?\n:;"“(-–—' or "'" in m.group().removesuffix("'s"):
            continue
        name = m.group().lower().removesuffix("'s")
        if len(name) > 2 and name not in STOPWORDS:
            found.add(name)
    return found


def moved(
    query: npt.NDArray[np.float32], seeds: Sequence[npt.NDArray[np.float32]], beta: float
) -> npt.NDArray[np.float32]:
    """The query vector moved towards the mean of the seeds' vectors (Rocchio), unit length."""
    if not seeds or beta <= 0:
        return query
    v = query.astype(np.float32) + beta * np.mean(np.stack(seeds), axis=0).astype(np.float32)
    norm = float(np.linalg.norm(v))
    return (v / norm).astype(np.float32) if norm > 0 else query


def fuse(
    scores: dict[str, float], rankings: Sequence[Sequence[str]], weight: float, k: int
) -> dict[str, float]:
    """The second hop's rankings fused (reciprocal rank) into one ranking, which counts as one more
    channel of ``weight`` in ``scores``. Rows the first hop missed become candidates."""
    if weight <= 0 or not rankings:
        return scores
    inner: dict[str, float] = {}
    for ranked in rankings:
        for r, d in enumerate(ranked, start=1):
            inner[d] = inner.get(d, 0.0) + 1.0 / (k + r)
    out = dict(scores)
    for r, d in enumerate(sorted(inner, key=lambda d: (-inner[d], d)), start=1):
        out[d] = out.get(d, 0.0) + weight / (k + r)
    return out


def second_hop(
    scores: dict[str, float],
    question: str,
    sight: Sight,
    *,
    lexical: Lexical,
    dense: Dense,
    follow_up: FollowUp | None,
    units: Sequence[str],
    depth: dict[str, int],
    drop: frozenset[str],
    qvec: npt.NDArray[np.float32] | None,
) -> dict[str, float]:
    """The second hop over ``scores`` (the first hop's fused relevance), per unit; see the module.
    ``lexical`` and ``dense`` are the first hop's channels, ``follow_up`` the model's question (or None)."""
    cfg = lexical.config
    candidates = lexical.candidates
    caller, kinds, include_archived, moment = sight
    rankings: list[list[str]] = []
    asked = content_terms(question)
    for unit in units:
        prefix = "ep_" if unit == "episode" else "mem_"
        seeds = sorted((d for d in scores if d.startswith(prefix)), key=lambda d: (-scores[d], d))[
            : cfg.hop_seeds
        ]
        texts = candidates.texts(unit, seeds, caller, include_archived, moment)
        found = [texts[d] for d in seeds if d in texts]
        if not found:
            continue
        rows = lexical.row_count(unit)
        everything = lexical.row_count("memory") + lexical.row_count("episode")
        exp = expand(
            question,
            found,
            drop=drop if unit == "episode" else frozenset(),
            df=partial(lexical.term_df, f"{unit}_fts", rows),
            rows=rows,
            max_terms=cfg.hop_terms,
            max_names=cfg.hop_names,
            name_df=partial(_swap, lexical.entity_df, everything),
            max_name_df=cfg.entity_max_df,
        )
        parts = cfg.hop_parts
        if "bm25" in parts and exp.terms:
            rankings.append(lexical.bm25(unit, " ".join([*asked, *exp.terms]), sight, depth[unit]))
        if "entity" in parts and exp.names:
            rankings.append(lexical.entity(unit, "", sight, depth[unit], names=exp.names))
        if "dense" in parts and qvec is not None and cfg.hop_beta > 0:
            cache = "episode" if unit == "episode" else "memory"
            vecs = [v for d in seeds if d in texts and (v := dense.caches[cache].vector(d)) is not None]
            if vecs:
                allowed = candidates.allowed_ids(unit, caller, kinds, include_archived, moment)
                rankings.append(dense.rank(cache, moved(qvec, vecs, cfg.hop_beta), allowed, depth[unit]))
        if "model" in parts and follow_up is not None:
            sub = _ask(follow_up, question, found)
            if sub:
                rankings.append(lexical.bm25(unit, sub, sight, depth[unit]))
                if qvec is not None:
                    allowed = candidates.allowed_ids(unit, caller, kinds, include_archived, moment)
                    svec = dense.embedder.embed([sub])[0]
                    rankings.append(
                        dense.rank("episode" if unit == "episode" else "memory", svec, allowed, depth[unit])
                    )
    return fuse(scores, rankings, cfg.hop_weight, cfg.rrf_k)


def _swap(count: Callable[[str, int], int], rows: int, name: str) -> int:
    return count(name, rows)


def _ask(follow_up: FollowUp, question: str, found: Sequence[str]) -> str | None:
    """The model's follow-up question, or None (no model, or it failed: the hop goes on without it)."""
    try:
        sub = follow_up(question, found)
    except Exception:  # the model part is optional; search never fails for it
        return None
    return sub.strip()[:500] if sub and sub.strip() else None
