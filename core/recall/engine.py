"""The recall pipeline, one stage after another (no LLM call):

1. channels: dense + BM25 + entity channels per unit, the access predicate in each one's SQL,
   fused by weighted reciprocal rank (core/recall/channels.py);
2. hydrate: the shortlist that could reach the top k, read with its ranking priors (rank.py);
3. truth: each hit's state and subject, the current memory of each subject brought in (truth.py);
4. priors and rank: utility, recency, trust and usage added; current truth first; time bounds;
5. shared items in their own block, then the trace (its id comes back for ``feedback``);
6. closeness: each hit labelled against the model's relevance floor (core/recall/relevance.py);
7. the asked attribute: a first-person question's statements of it, newest first (core/recall/asked.py).

Fencing and answering come after, in core/recall/answer.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime

from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import asked, learned, meaning, rank, relevance, truth
from veramem_desktop.core.recall.channels import Channels
from veramem_desktop.core.recall.hits import Hit, SearchResult
from veramem_desktop.core.recall.query import route_for, temporal_intent
from veramem_desktop.core.recall.rank import TimeBound
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage import episode_contents, item_search, traces
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.ids import iso, new_id
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache, VectorIndex


class SearchEngine:
    """Recall over one store: the channels, then hydrate, truth and ranking."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: SearchConfig | None = None,
        vectors: VectorIndex | None = None,
    ) -> None:
        """``vectors``: the store's vector caches, owned by whoever builds the engine so that the write path,
        the linker and consolidation read the same ones (a private set is made when none is given)."""
        self.channels = Channels(store, embedder, config, vectors)
        self.store = store
        self._learned = learned.ModelCache()

    # The channels' parts that the write path, the linker and the bench use directly.
    @property
    def embedder(self) -> Embedder:
        return self.channels.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self.channels.embedder = embedder

    @property
    def config(self) -> SearchConfig:
        return self.channels.config

    @property
    def vectors(self) -> VectorIndex:
        return self.channels.vectors

    @property
    def caches(self) -> dict[str, VectorCache]:
        return self.channels.caches

    @property
    def hypothesise(self) -> Callable[[str], str | None] | None:
        return self.channels.hypothesise

    @hypothesise.setter
    def hypothesise(self, fn: Callable[[str], str | None] | None) -> None:
        self.channels.hypothesise = fn

    def rank(
        self, query: str, caller: Caller, **kwargs: object
    ) -> tuple[str, dict[str, float], dict[str, dict[str, int]]]:
        """Fused relevance per id before priors and truth (see :meth:`Channels.rank`); the store's version is
        read once (see Candidates.pinned)."""
        with self.channels.candidates.pinned():
            return self.channels.rank(query, caller, **kwargs)  # type: ignore[arg-type]

    def speaker_names(self, caller: Caller, now: str) -> tuple[str, ...]:
        return self.channels.speaker_names(caller, now)

    # ------------------------------------------------------------ the pipeline
    def search(
        self,
        query: str,
        caller: Caller,
        *,
        k: int | None = None,
        route: str | None = None,
        include_archived: bool = False,
        now: datetime | None = None,
        write_trace: bool = True,
        kind: str = "search",
    ) -> SearchResult:
        started = time.perf_counter()
        cfg = self.config
        k = k or cfg.k
        moment = now or datetime.now(UTC)
        intent = temporal_intent(query)
        bound, notice = rank.time_bound(intent, moment)
        if intent.kind == "since" and bound is None:
            # the words after "since" or "after" name no time it can read: no bound. A question asked of now
            # ("who looks after Maya now?") missed none, so it says nothing of one
            intent = temporal_intent(query, since=False)
            notice = notice if intent.kind != "latest" else None
        route = route or self.route(query, intent.kind)
        # Stages 1 to 3 read the store's version once (each read is a statement): see Candidates.pinned.
        with self.channels.candidates.pinned():
            route, own, shared, groups = self._gather(
                query, caller, k, route, include_archived, moment, bound
            )
        # 4. priors, then current truth first (the asker's own first for a first-person question);
        #    history questions keep the time order instead
        rank.apply_priors(own)
        rank.apply_priors(shared)
        own = rank.within(own, bound)
        own = truth.order(own, groups) if intent.kind is None else sorted(own, key=lambda h: -h.score)
        own = rank.asker_first(own, query)
        # the asked attribute's lead is not cut by k: it is found by closeness, so the shortlist is labelled
        # here (step 6 then labels only the shared block)
        labelled = cfg.lead_within_k and intent.kind in (None, "latest")
        meant = self.meant(query) if intent.kind in (None, "latest") else frozenset()
        if labelled:
            self._label_closeness(query, own, [])
            own = asked.within(own, query, k, meant)
        own = own[:k]
        if intent.kind == "latest":
            own.sort(key=lambda h: h.time or "", reverse=True)
        elif intent.kind is not None:
            own.sort(key=lambda h: h.time or "")
        # 5. the shared block, labelled, never displacing the caller's own
        shared = sorted(shared, key=lambda h: -h.score)[: cfg.shared_k]
        # 6. closeness: each hit labelled against the relevance floor (labels only: nothing moves or goes)
        nothing_close = self._label_closeness(query, [] if labelled else own, shared)
        if labelled:
            nothing_close = not any(h.close for h in own)
        # 7. the asked attribute's statements, newest first ("where do I work now?"), then what states
        #    it before chit-chat; a history question keeps its time order
        if intent.kind in (None, "latest"):
            own = asked.settle(own, query, meant)
        own = rank.statements_first(own, query)
        trace_id = new_id("tr")
        if write_trace:
            self._write_trace(trace_id, kind, caller, query, route, own + shared, {"temporal": intent.kind})
        return SearchResult(
            trace_id,
            route,
            own,
            shared,
            intent.kind,
            (time.perf_counter() - started) * 1000,
            [notice] if notice else [],
            nothing_close,
        )

    def route(self, query: str, temporal: str | None) -> str:
        """The granularity a question is searched at (query.route_for); a question of what holds now that
        the rule sends to the statements searches the messages they came from beside them (route "dual"):
        the person's own words of a change then rank with the statements read from them, so an older plain
        statement of the old value does not lead alone ("ported my number to Tidewave Mobile last month"
        beside "my phone contract is with Vodafone"). A history question keeps the rule's route
        (``SearchConfig.own_messages`` off keeps it for every question)."""
        plain = route_for(query)
        if plain == "facts" and self.config.own_messages and temporal in (None, "latest"):
            return "dual"
        return plain

    def meant(self, query: str) -> frozenset[str]:
        """The attribute the question asks by its meaning when its words name none (core/recall/meaning.py),
        read from the question's vector the dense channel embedded."""
        if not self.config.read_by_meaning or not meaning.unread(query):
            return frozenset()
        return meaning.meant(query, self.channels.dense.embedding(query).result()[0], self.embedder)

    def _label_closeness(self, query: str, own: list[Hit], shared: list[Hit]) -> bool:
        """Label every hit's closeness to the question (the question's vector is the one the dense channel
        embedded); True when none of the caller's own hits is close."""
        floor = relevance.floor_for(self.embedder.name)
        question = self.channels.dense.embedding(query).result()[0]
        relevance.label(shared, question, self.channels.vectors, floor)
        return relevance.label(own, question, self.channels.vectors, floor)

    def _gather(
        self,
        query: str,
        caller: Caller,
        k: int,
        route: str | None,
        include_archived: bool,
        moment: datetime,
        bound: TimeBound | None,
    ) -> tuple[str, list[Hit], list[Hit], dict[str, object]]:
        """Stages 1 to 3: the channels, the hits read from the store, and their truth. Returns the route,
        the caller's own hits, the shared ones and the subject group of each own hit."""
        cfg = self.config
        # 1. channels (access predicate in their SQL)
        route, scores, ranks = self.channels.rank(
            query, caller, route=route, include_archived=include_archived, now=moment
        )
        # 2. hydrate: with a time bound every candidate is read, since the bound may drop many. The
        #    memories' truth rows come with their ranking rows (one read), for stage 3.
        model = self._learned.get(self.store, self.channels.version()) if cfg.learned_share > 0 else None
        known: dict[str, truth.TruthRow] = {}
        hits = rank.hydrate(
            self.store, scores if bound else rank.shortlist(scores, k, cfg), ranks, moment, cfg, model, known
        )
        own = [h for h in hits if h.kind == "episode" or h.user_id == caller.user_id]
        if route == "facts" and len(own) < max(1, int(k * cfg.raw_fill_share)):
            _, raw_scores, raw_ranks = self.channels.rank(query, caller, route="raw", now=moment)
            raw = raw_scores if bound else rank.shortlist(raw_scores, k, cfg)
            hits += [
                h for h in rank.hydrate(self.store, raw, raw_ranks, moment, cfg, None) if h.id not in scores
            ]
        shared = [h for h in hits if h.kind != "episode" and h.user_id != caller.user_id]
        own = [h for h in hits if h.kind == "episode" or h.user_id == caller.user_id]
        # 3. truth: states, subjects, and the current memory of each subject the hits speak about
        own, groups = truth.annotate(
            self.store, own, self._fetcher(caller, moment, include_archived, cfg, model, known), known
        )
        shared, _ = truth.annotate(self.store, shared, lambda ids: [], known)
        return route, own, shared, groups

    def annotate(self, hits: list[Hit]) -> list[Hit]:
        """The truth stage for hits gathered elsewhere (the answer ladder's source episodes and turns);
        they were read through the caller's access predicate already."""
        annotated, _ = truth.annotate(self.store, hits, lambda ids: [])
        return annotated

    def _fetcher(
        self,
        caller: Caller,
        moment: datetime,
        include_archived: bool,
        cfg: SearchConfig,
        model: learned.LearnedModel | None,
        known: dict[str, truth.TruthRow] | None = None,
    ) -> truth.Fetch:
        """Hydrate memories (and messages) the truth stage asks for, through the caller's access predicate
        (their truth rows go to ``known``, read with them)."""

        def fetch(ids: list[str]) -> list[Hit]:
            mems = [i for i in ids if not i.startswith("ep_")]
            allowed = (
                item_search.visible_among(self.store, mems, caller, include_archived, iso(moment))
                if mems
                else []
            )
            allowed += [
                i
                for i in ids
                if i.startswith("ep_")
                and episode_contents.visible_hit_row(self.store, i, caller, iso(moment))
            ]
            return rank.hydrate(self.store, dict.fromkeys(allowed, 0.0), {}, moment, cfg, model, known)

        return fetch

    def _write_trace(
        self,
        trace_id: str,
        kind: str,
        caller: Caller,
        query: str,
        route: str,
        hits: list[Hit],
        meta: dict[str, object],
    ) -> None:
        with self.store.lock:  # nothing else of this process writes between the two version reads
            before = self.store.data_version()
            # A trace is telemetry, not memory: it is committed without waiting for the disk.
            with self.store.atomic(durable=False) as conn:
                traces.insert(
                    conn,
                    trace_id,
                    kind,
                    iso(datetime.now(UTC)),
                    caller.user_id,
                    caller.agent_id,
                    query,
                    route,
                    json.dumps([h.id for h in hits]),
                    json.dumps(meta),
                )
            after = self.store.data_version()
        self.channels.note_trace(before, after)
