"""Candidate channels, run per unit (memories, episodes) and fused: dense + BM25 + entity channels
→ weighted reciprocal rank fusion → the speaker rule, neighbouring turns, the date fit, short
turns, the second hop and typed links. What comes out is relevance only; truth and priors come
after (core/recall/).

This module is the orchestration; the parts are beside it:

- core/recall/candidates.py: the access-checked reads of every channel (their SQL in
  core/storage/item_search.py, episode_contents.py and index_rows.py), and the store version the
  caches follow;
- core/recall/dense.py: the dense channel (vector caches, the question's embedding, "hyde");
- core/recall/lexical.py: the BM25 and entity channels (which words and names are worth ranking);
- core/recall/temporal.py: the date-fit channel;
- core/recall/hops.py: the second hop.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import hops, telling
from veramem_desktop.core.recall.candidates import Candidates
from veramem_desktop.core.recall.dense import Dense
from veramem_desktop.core.recall.focus import focus, question_kind
from veramem_desktop.core.recall.fusion import expand_neighbours, max_rrf, speaker_bonus, weighted_rrf
from veramem_desktop.core.recall.lexical import Lexical
from veramem_desktop.core.recall.query import names_in, route_for
from veramem_desktop.core.recall.recipes import MEMORY_KINDS_BY_ROUTE, ROUTES, SearchConfig
from veramem_desktop.core.recall.temporal import date_fit
from veramem_desktop.core.recall.topic import QueryVectors
from veramem_desktop.core.storage.access import Caller, Sight
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache, VectorIndex
from veramem_desktop.core.text.terms import content_terms, entities


class Channels:
    """The candidate channels of one store: dense (memories, episodes, context vectors), BM25, entities,
    the speaker rule, neighbouring turns and typed links, fused by weighted reciprocal rank.

    Every channel's SQL carries the access predicate, and the dense channel scores only the rows that
    predicate allowed, so nothing a caller may not see is ever ranked. Holds the vector caches and the
    per-caller allowed sets, each valid for one store version."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: SearchConfig | None = None,
        vectors: VectorIndex | None = None,
    ) -> None:
        self.store = store
        config = config or SearchConfig()
        self.candidates = Candidates(store)
        self.lexical = Lexical(self.candidates, config)
        self.dense = Dense(self.candidates, embedder, config, vectors)
        #: the vector caches, shared with the write path, the linker and consolidation when given
        self.vectors: VectorIndex = self.dense.vectors
        self.caches: dict[str, VectorCache] = self.dense.caches
        #: question -> one hypothetical answer sentence (a model call), for the "hyde" channel
        self.hypothesise: Callable[[str], str | None] | None = None
        #: (question, what the first hop found) -> a follow-up question (a model call), for the second hop
        self.follow_up: hops.FollowUp | None = None

    @property
    def embedder(self) -> Embedder:
        return self.dense.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self.dense.embedder = embedder

    @property
    def config(self) -> SearchConfig:
        return self.lexical.config

    @config.setter
    def config(self, config: SearchConfig) -> None:
        self.lexical.config = config

    def version(self) -> int:
        """The store's data version, except that this engine's own trace writes do not move it
        (see :meth:`Candidates.version`)."""
        return self.candidates.version()

    def note_trace(self, before: int, after: int) -> None:
        """This engine wrote one trace and nothing else moved the store from ``before`` to ``after``:
        every cache stays valid."""
        self.candidates.note_trace(before, after)

    def speaker_names(self, caller: Caller, now: str) -> tuple[str, ...]:
        """The distinct speaker names among the caller's visible episodes (cached per store version)."""
        return self.candidates.speaker_names(caller, now)

    # ------------------------------------------------------------ ranking
    def rank(
        self,
        query: str,
        caller: Caller,
        *,
        route: str | None = None,
        include_archived: bool = False,
        now: datetime | None = None,
        channels: tuple[str, ...] | None = None,
        n: int | None = None,
    ) -> tuple[str, dict[str, float], dict[str, dict[str, int]]]:
        """Fused relevance per id (memories and episodes), before priors. Returns (route, scores, ranks).

        ``channels`` restricts the work to some of "dense", "dense_ctx", "bm25", "entity", "hyde", "speaker",
        "neighbours", "temporal", "focus" (these four act on episodes), "memory_ctx" and "links" (on memories),
        "topic" (core/recall/topic.py), "hop" (the second hop, core/recall/hops.py), "fact_votes"
        (core/recall/fact_votes.py) and "telling" (core/recall/telling.py); by default all run (memory_ctx,
        hyde, links, hop do no work at weight 0)."""
        moment = iso(now or datetime.now(UTC))
        route = route or route_for(query)
        if route not in ROUTES:
            raise ValueError(f"unknown route {route!r}")
        cfg = self.config
        depth = {"memory": n or cfg.memory_candidates, "episode": n or cfg.candidates}
        use = self._channels_in_use(channels)
        kinds = MEMORY_KINDS_BY_ROUTE[route]
        units = (["memory"] if kinds else []) + (["episode"] if route in ("raw", "dual") else [])
        speakers = self._speakers_needed(units, use, caller, moment)
        # Every turn carries its speaker's name, so a speaker named in the query is no entity
        # to match among episodes; the speaker rule below uses it instead.
        speaker_words = frozenset(w for name in speakers for w in entities(name) | {name.casefold()})
        # The query (or its topic, core/recall/topic.py) is embedded on another thread while the lexical
        # channels run here: the model and SQLite both release the GIL, so on two cores the costs overlap.
        dense = [f"{u}:{c}" for u in units for c in ("dense", "dense_ctx", "memory_ctx") if c in use]
        topic = cfg.topic_channels if "topic" in use else ()
        vectors = QueryVectors(self.dense, query, dense, topic, speaker_words)
        scope = Sight(caller, kinds, include_archived, moment)
        lexical = self._lexical_rankings(units, use, query, scope, depth, speaker_words)
        qvec = vectors.first()
        want_hyde = "hyde" in use and cfg.weights.get("hyde", 0.0) > 0
        hvec = self.dense.hypothesis(self.hypothesise, query) if want_hyde else None
        rankings: dict[str, list[str]] = {}
        for unit in units:
            rankings.update(self._dense_rankings(unit, use, vectors, hvec, scope, depth[unit]))
            rankings.update({name: ranked for name, ranked in lexical.items() if name.startswith(f"{unit}:")})
        weights = {name: self._weight(name) for name in rankings}
        scores = weighted_rrf(rankings, weights, cfg.rrf_k)
        scores = self._episode_passes(scores, query, caller, moment, use, units, rankings, speakers)
        if "episode" in units:  # the fact votes, then the tellings
            scores = telling.votes(scores, query, scope, self.dense, qvec, cfg, rankings, use)
        if "hop" in use and cfg.hop_weight:
            scores = hops.second_hop(
                scores,
                query,
                scope,
                lexical=self.lexical,
                dense=self.dense,
                follow_up=self.follow_up,
                units=units,
                depth=depth,
                drop=speaker_words,
                qvec=qvec,
            )
        if "memory" in units and "links" in use and cfg.link_decay:
            scores = self._link_expansion(scores, caller, kinds, include_archived, moment)
        scale = max_rrf(
            weights, [c for c in rankings if c.startswith(units[0] + ":")] if units else [], cfg.rrf_k
        )
        scores = {d: s / scale for d, s in scores.items()}
        return route, scores, _ranks_by_id(rankings)

    def _channels_in_use(self, channels: tuple[str, ...] | None) -> set[str]:
        """The channels asked for, else the recipe's, else every channel the weights name plus the rules."""
        cfg = self.config
        channels = channels if channels is not None else cfg.channels
        if channels is not None:
            return set(channels)
        return {
            *cfg.weights,
            *cfg.episode_weights,
            "speaker",
            "neighbours",
            "links",
            "temporal",
            "hop",
            "substance",
            "focus",
            "topic",
            "fact_votes",
            "telling",
        }

    def _speakers_needed(
        self, units: list[str], use: set[str], caller: Caller, moment: str
    ) -> tuple[str, ...]:
        """The speaker names, read only when episodes are ranked by a channel that sets speakers apart."""
        if "episode" in units and {"entity", "speaker", "hop", "focus", "topic"} & use | (
            {"bm25"} if self.config.bm25_without_speakers else set()
        ):
            return self.speaker_names(caller, moment)
        return ()

    def _lexical_rankings(
        self,
        units: list[str],
        use: set[str],
        query: str,
        scope: Sight,
        depth: dict[str, int],
        speaker_words: frozenset[str],
    ) -> dict[str, list[str]]:
        """The BM25 and entity rankings per unit ("unit:channel"); among episodes the speakers' own names
        are no entity (nor, with ``bm25_without_speakers``, a BM25 term)."""
        cfg = self.config
        lexical: dict[str, list[str]] = {}
        for unit in units:
            if "bm25" in use:
                lexical[f"{unit}:bm25"] = self.lexical.bm25(
                    unit,
                    query,
                    scope,
                    depth[unit],
                    speaker_words if unit == "episode" and cfg.bm25_without_speakers else frozenset(),
                )
            if "entity" in use:
                drop = speaker_words if unit == "episode" else frozenset()
                lexical[f"{unit}:entity"] = self.lexical.entity(unit, query, scope, depth[unit], drop)
        return lexical

    def _dense_rankings(
        self,
        unit: str,
        use: set[str],
        vectors: QueryVectors,
        hvec: npt.NDArray[np.float32] | None,
        scope: Sight,
        depth: int,
    ) -> dict[str, list[str]]:
        """One unit's vector rankings, in fusion order: dense, the episodes' context vectors, the memories'
        context vectors (once the linker has written some, at a weight above 0), then "hyde"."""
        cfg = self.config
        out: dict[str, list[str]] = {}
        if "dense" in use and (qvec := vectors.of(f"{unit}:dense")) is not None:
            allowed = self.candidates.allowed_ids(unit, *scope)
            out[f"{unit}:dense"] = self.dense.rank(unit, qvec, allowed, depth)
            if unit == "episode" and (cvec := vectors.of("episode:dense_ctx")) is not None:
                out["episode:dense_ctx"] = self.dense.rank("episode_ctx", cvec, allowed, depth)
        if (
            unit == "memory"
            and cfg.weights.get("memory_ctx", 0.0) > 0
            and (mvec := vectors.of("memory:memory_ctx")) is not None
        ):
            allowed = self.candidates.allowed_ids(unit, *scope)
            ctx_ranked = self.dense.rank("memory_ctx", mvec, allowed, depth)
            if ctx_ranked:  # only once the linker has written context vectors
                out["memory:memory_ctx"] = ctx_ranked
        if hvec is not None:
            allowed = self.candidates.allowed_ids(unit, *scope)
            out[f"{unit}:hyde"] = self.dense.rank(unit, hvec, allowed, depth)
        return out

    def _episode_passes(
        self,
        scores: dict[str, float],
        query: str,
        caller: Caller,
        moment: str,
        use: set[str],
        units: list[str],
        rankings: dict[str, list[str]],
        speakers: tuple[str, ...],
    ) -> dict[str, float]:
        """When episodes are ranked: the speaker and neighbour rules, the date fit, speaker focus, then
        the short-turn discount, each where it is in use and weighted."""
        if "episode" not in units:
            return scores
        cfg = self.config
        scores = self._episode_rules(scores, query, caller, moment, use, speakers)
        if "temporal" in use and cfg.temporal_weight:
            scores = date_fit(scores, query, caller, moment, lexical=self.lexical, config=cfg)
        if "focus" in use and cfg.focus_weights:
            scores = self._focus(scores, query, rankings, speakers)
        if "substance" in use and cfg.short_turn_factor < 1.0:
            scores = self._substance(scores, caller, moment)
        return scores

    def _weight(self, name: str) -> float:
        unit, channel = name.split(":", 1)
        cfg = self.config
        if unit == "episode" and channel in cfg.episode_weights:
            return cfg.episode_weights[channel]
        return cfg.weights.get(channel, 1.0)

    def _episode_rules(
        self,
        scores: dict[str, float],
        query: str,
        caller: Caller,
        moment: str,
        use: set[str],
        speakers: tuple[str, ...],
    ) -> dict[str, float]:
        """The speaker rule, then neighbour expansion, over the episode candidates."""
        cfg = self.config
        if "speaker" in use and cfg.speaker_weight:
            named = names_in(query, speakers)
            if len(named) == 1:
                ep_ids = [d for d in scores if d.startswith("ep_")]
                scores = speaker_bonus(
                    scores, self.candidates.speakers_of(ep_ids), named[0], cfg.speaker_weight, cfg.rrf_k
                )
        if "neighbours" in use and cfg.neighbour_decay:
            ep_scores = {d: s for d, s in scores.items() if d.startswith("ep_")}
            if ep_scores:
                grown = expand_neighbours(
                    ep_scores,
                    self.candidates.neighbours(list(ep_scores), caller, moment),
                    cfg.neighbour_decay,
                )
                scores = {**scores, **grown}
        return scores

    def _focus(
        self,
        scores: dict[str, float],
        query: str,
        rankings: dict[str, list[str]],
        speakers: tuple[str, ...],
    ) -> dict[str, float]:
        """Speaker focus (core/recall/focus.py): for a question that gathers or supposes about one named
        speaker, that speaker's turns in the episode channels' rankings count as channels of their own."""
        weights = self.config.focus_weights.get(question_kind(query) or "", {})
        named = names_in(query, speakers) if weights else []
        if len(named) != 1:
            return scores
        own = {c: rankings[f"episode:{c}"] for c in weights if f"episode:{c}" in rankings}
        ids = sorted({d for ranked in own.values() for d in ranked})
        return focus(scores, own, self.candidates.speakers_of(ids), named[0], weights, self.config.rrf_k)

    def _substance(self, scores: dict[str, float], caller: Caller, moment: str) -> dict[str, float]:
        """Short turns that say little of their own ("Thanks, see you soon!") rarely hold what a question
        asks for: among the best ``short_turn_top`` turns, one with fewer than ``short_turn_terms``
        content words keeps ``short_turn_factor`` of its score."""
        cfg = self.config
        top = sorted((d for d in scores if d.startswith("ep_")), key=lambda d: -scores[d])[
            : cfg.short_turn_top
        ]
        out = dict(scores)
        for d, text in self.candidates.texts("episode", top, caller, False, moment).items():
            if _substance(text) < cfg.short_turn_terms:
                out[d] *= cfg.short_turn_factor
        return out

    def _link_expansion(
        self,
        scores: dict[str, float],
        caller: Caller,
        kinds: tuple[str, ...],
        include_archived: bool,
        moment: str,
    ) -> dict[str, float]:
        """One hop along typed links from the best memory candidates to memories the caller may see."""
        seeds = sorted((d for d in scores if d.startswith("mem_")), key=lambda d: -scores[d])[
            : self.config.link_seeds
        ]
        if not seeds:
            return scores
        rows = self.candidates.linked(seeds, caller, kinds, include_archived, moment)
        # A linked memory gains a share of its best seed's score; the seeds keep their own order.
        chosen = set(seeds)
        gift: dict[str, float] = {}
        for src, dst in rows:
            if dst not in chosen:
                gift[dst] = max(gift.get(dst, 0.0), self.config.link_decay * scores[src])
        return {**scores, **{d: scores.get(d, 0.0) + g for d, g in gift.items()}}


def _ranks_by_id(rankings: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    """Each id's 1-based rank in every channel that ranked it, by channel name without its unit."""
    ranks: dict[str, dict[str, int]] = {}
    for name, ranked in rankings.items():
        for r, d in enumerate(ranked, start=1):
            ranks.setdefault(d, {})[name.split(":", 1)[1]] = r
    return ranks


@lru_cache(maxsize=8192)
def _substance(content: str) -> int:
    """How many distinct content words a turn holds."""
    return len(content_terms(content))
