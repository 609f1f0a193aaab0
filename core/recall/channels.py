"""Candidate channels: access predicate (in SQL) → dense + BM25 + entity channels per unit
(memories, episodes) → weighted reciprocal rank fusion → the speaker rule, neighbouring turns
and typed links. What comes out is relevance only; truth and priors come after (core/recall/).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, date, datetime
from functools import lru_cache, partial
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.lifecycle.links import LINK_TYPES
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import hops, periods
from veramem_desktop.core.recall.fusion import expand_neighbours, max_rrf, speaker_bonus, weighted_rrf
from veramem_desktop.core.recall.query import (
    asked_time,
    content_terms,
    entities,
    fts_match,
    names_in,
    route_for,
)
from veramem_desktop.core.recall.recipes import MEMORY_KINDS_BY_ROUTE, ROUTES, SearchConfig
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.trust import access
from veramem_desktop.core.trust.access import Caller


class Channels:
    """The candidate channels of one store: dense (memories, episodes, context vectors), BM25, entities,
    the speaker rule, neighbouring turns and typed links, fused by weighted reciprocal rank.

    Every channel's SQL carries the access predicate, and the dense channel scores only the rows that
    predicate allowed, so nothing a caller may not see is ever ranked. Holds the vector caches and the
    per-caller allowed sets, each valid for one store version."""

    def __init__(self, store: Store, embedder: Embedder, config: SearchConfig | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config or SearchConfig()
        self.caches = {
            kind: VectorCache(kind, embedder.name, embedder.dim, exact_up_to=self.config.dense_exact_up_to)
            for kind in ("memory", "episode", "episode_ctx", "memory_ctx")
        }
        #: question -> one hypothetical answer sentence (a model call), for the "hyde" channel
        self.hypothesise: Callable[[str], str | None] | None = None
        #: (question, what the first hop found) -> a follow-up question (a model call), for the second hop
        self.follow_up: hops.FollowUp | None = None
        self._allowed: dict[tuple[Any, ...], tuple[int, list[str]]] = {}
        self._speakers: dict[tuple[Any, ...], tuple[int, tuple[str, ...]]] = {}
        self._latest: dict[tuple[Any, ...], tuple[int, str | None]] = {}
        self._positions: dict[tuple[Any, ...], tuple[int, npt.NDArray[np.int64]]] = {}
        #: (version before, version after) this engine's last trace write, when nothing else wrote
        self._alias: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._dfs: dict[str, tuple[int, dict[str, int]]] = {}
        self._fts_rows: dict[str, tuple[int, int]] = {}
        self._last_embedding: tuple[tuple[str, str], Future[npt.NDArray[np.float32]]] | None = None

    def version(self) -> int:
        """The store's data version, except that this engine's own trace writes do not move it:
        a trace changes no memory, episode, vector or grant, so every cache stays valid."""
        raw = self.store.data_version()
        with self._lock:
            alias = self._alias
        return alias[0] if alias is not None and alias[1] == raw else raw

    def note_trace(self, before: int, after: int) -> None:
        """This engine wrote one trace and nothing else moved the store from ``before`` to ``after``:
        every cache stays valid."""
        if after == before + 1:
            with self._lock:
                alias = self._alias
                self._alias = (alias[0] if alias is not None and alias[1] == before else before, after)

    # ------------------------------------------------------------ allowed sets
    def _allowed_ids(
        self, unit: str, caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str
    ) -> tuple[tuple[Any, ...], list[str]]:
        """The ids the caller may see (the access predicate in SQL), cached per store version and minute."""
        version = self.version()
        key = (unit, caller, kinds, include_archived, now[:16])
        with self._lock:
            hit = self._allowed.get(key)
            if hit is not None and hit[0] == version:
                return key, hit[1]
        if unit == "memory":
            sql = (
                f"SELECT m.id FROM memory_items m WHERE {access.memory_predicate('m', include_archived=include_archived)}"
                f" AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))})"
            )
            params = {**access.params(caller, now), **{f"k{i}": k for i, k in enumerate(kinds)}}
        else:
            sql = f"SELECT e.id FROM episodes e WHERE {access.episode_predicate('e')}"
            params = access.params(caller, now)
        ids = [r[0] for r in self.store.query(sql, params)]
        with self._lock:
            if len(self._allowed) > 64:
                self._allowed.clear()
            self._allowed[key] = (version, ids)
        return key, ids

    # ------------------------------------------------------------ channels
    def _dense(
        self,
        cache_kind: str,
        qvec: npt.NDArray[np.float32],
        allowed: tuple[tuple[Any, ...], list[str]],
        n: int,
    ) -> list[str]:
        """Cosine over the allowed rows only; their matrix positions are cached with the allowed set."""
        cache = self.caches[cache_kind]
        version = self.version()
        cache.refresh(cast(Store, _VersionView(self.store, version)))
        key = (cache_kind, *allowed[0])
        with self._lock:
            hit = self._positions.get(key)
        if hit is not None and hit[0] == version:
            positions = hit[1]
        else:
            positions = cache.positions(allowed[1])
            with self._lock:
                if len(self._positions) > 64:
                    self._positions.clear()
                self._positions[key] = (version, positions)
        return [i for i, _ in cache.top(qvec, positions, n)]

    def _deep(self, n: int) -> int:
        """How many raw full-text or entity matches are ranked before the access predicate and the
        kinds filter keep the caller's ``n``: enough for every store of one person, and it keeps the
        joins from running over every match of a common word."""
        return max(5 * n, 1000)

    def _row_count(self, unit: str) -> int:
        """Full-text rows of the unit (memories or episodes), counted once per store version."""
        version = self.version()
        with self._lock:
            cached = self._fts_rows.get(unit)
        if cached is not None and cached[0] == version:
            return cached[1]
        rows = int(self.store.query_one("SELECT count(*) FROM fts_rows WHERE owner_kind = ?", (unit,))[0])
        with self._lock:
            self._fts_rows[unit] = (version, rows)
        return rows

    def _df(self, space: str, size: int, key: str, count: Callable[[], int]) -> int:
        """A document frequency, counted once and kept until the ``space`` it was counted in has
        grown or shrunk by a tenth: it only decides whether a word or name is too common to rank."""
        with self._lock:
            known, counts = self._dfs.get(space, (0, {}))
            if not (known <= size <= known * 1.1):
                known, counts = size, {}
                self._dfs[space] = (known, counts)
            hit = counts.get(key)
        if hit is None:
            hit = counts[key] = count()
        return hit

    def _match(self, unit: str, query: str, drop: frozenset[str] = frozenset()) -> str | None:
        """The full-text query for ``query``: its content words OR-ed.

        In a large store, words matching more than ``term_max_df`` rows (or 0.5% of them) say
        little (low idf) yet cost the ranking a walk over every row they match, so they are left
        out; when every word is that common, their co-occurrence is what still says something,
        and only rows with all of them are ranked."""
        terms = [t for t in content_terms(query) if t not in drop][:32]
        rows = self._row_count(unit)
        limit = max(self.config.term_max_df, rows // 200)
        if rows <= limit or rows < self.config.term_prune_min_rows:
            return fts_match(terms)
        table = f"{unit}_fts"

        def matching(term: str) -> int:
            return int(
                self.store.query_one(
                    f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (fts_match([term]),)
                )[0]
            )

        dfs = {t: self._df(table, rows, t, partial(matching, t)) for t in terms}
        selective = [t for t in terms if 0 < dfs[t] <= limit]
        if selective:
            return fts_match(selective)
        return fts_match([t for t in terms if dfs[t] > 0], "AND")

    def _bm25(
        self,
        unit: str,
        query: str,
        caller: Caller,
        kinds: tuple[str, ...],
        include_archived: bool,
        now: str,
        n: int,
        drop: frozenset[str] = frozenset(),
    ) -> list[str]:
        match = self._match(unit, query, drop)
        if match is None:
            return []
        params: dict[str, Any] = {**access.params(caller, now), "match": match, "n": n, "deep": self._deep(n)}
        if unit == "memory":
            params.update({f"k{i}": k for i, k in enumerate(kinds)})
            sql = (
                "WITH f AS MATERIALIZED (SELECT rowid AS rid, bm25(memory_fts) AS score FROM memory_fts "
                "WHERE memory_fts MATCH :match ORDER BY score LIMIT :deep) "
                "SELECT m.id FROM f CROSS JOIN fts_rows r ON r.rowid = f.rid AND r.owner_kind = 'memory' "
                "CROSS JOIN memory_items m ON m.id = r.owner_id "
                f"WHERE {access.memory_predicate('m', include_archived=include_archived)} "
                f"AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))}) "
                "ORDER BY f.score, f.rid LIMIT :n"
            )
        else:
            sql = (
                "WITH f AS MATERIALIZED (SELECT rowid AS rid, bm25(episode_fts) AS score FROM episode_fts "
                "WHERE episode_fts MATCH :match ORDER BY score LIMIT :deep) "
                "SELECT e.id FROM f CROSS JOIN fts_rows r ON r.rowid = f.rid AND r.owner_kind = 'episode' "
                "CROSS JOIN episodes e ON e.id = r.owner_id "
                f"WHERE {access.episode_predicate('e')} ORDER BY f.score, f.rid LIMIT :n"
            )
        return [r[0] for r in self.store.query(sql, params)]

    def _entity(
        self,
        unit: str,
        query: str,
        caller: Caller,
        kinds: tuple[str, ...],
        include_archived: bool,
        now: str,
        n: int,
        drop: frozenset[str] = frozenset(),
        *,
        names: tuple[str, ...] | None = None,
    ) -> list[str]:
        """Rows carrying the query's entities (or the given ``names``), most matches first."""
        owner_kind = "memory" if unit == "memory" else "episode"
        rows = self._row_count("memory") + self._row_count("episode")
        asked = set(names) if names is not None else entities(query)
        names = tuple(
            e for e in sorted(asked - drop) if self._entity_df(e, rows) <= self.config.entity_max_df
        )
        if not names:
            return []
        params: dict[str, Any] = {
            **access.params(caller, now),
            "n": n,
            "deep": self._deep(n),
            "ok": owner_kind,
        }
        params.update({f"en{i}": e for i, e in enumerate(names)})
        in_names = ",".join(f":en{i}" for i in range(len(names)))
        matches = (
            "WITH en AS MATERIALIZED (SELECT owner_id, count(*) AS c FROM entities INDEXED BY entities_by_name "
            f"WHERE entity IN ({in_names}) AND owner_kind = :ok GROUP BY owner_id ORDER BY c DESC LIMIT :deep) "
        )
        if unit == "memory":
            params.update({f"k{i}": k for i, k in enumerate(kinds)})
            sql = (
                matches + "SELECT m.id FROM en CROSS JOIN memory_items m ON m.id = en.owner_id "
                f"WHERE {access.memory_predicate('m', include_archived=include_archived)} "
                f"AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))}) "
                "ORDER BY en.c DESC, m.created_at DESC LIMIT :n"
            )
        else:
            sql = (
                matches + "SELECT e.id FROM en CROSS JOIN episodes e ON e.id = en.owner_id "
                f"WHERE {access.episode_predicate('e')} ORDER BY en.c DESC, e.event_time DESC LIMIT :n"
            )
        return [r[0] for r in self.store.query(sql, params)]

    def _term_df(self, table: str, rows: int, term: str) -> int:
        """How many full-text rows of ``table`` hold the word (counted once, see :meth:`_df`)."""
        return self._df(
            table,
            rows,
            term,
            lambda: int(
                self.store.query_one(
                    f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (fts_match([term]),)
                )[0]
            ),
        )

    def _texts(
        self, unit: str, ids: list[str], caller: Caller, include_archived: bool, now: str
    ) -> dict[str, str]:
        """The words of the given rows that the caller may see (the access predicate in the SQL)."""
        if not ids:
            return {}
        params: dict[str, Any] = {**access.params(caller, now), **{f"c{i}": d for i, d in enumerate(ids)}}
        marks = ",".join(f":c{i}" for i in range(len(ids)))
        if unit == "memory":
            sql = (
                f"SELECT m.id, m.text FROM memory_items m WHERE m.id IN ({marks}) AND "
                f"{access.memory_predicate('m', include_archived=include_archived)}"
            )
        else:
            sql = f"SELECT e.id, e.content FROM episodes e WHERE e.id IN ({marks}) AND {access.episode_predicate('e')}"
        return {r[0]: str(r[1]) for r in self.store.query(sql, params)}

    def _entity_df(self, entity: str, rows: int) -> int:
        """How many of the ``rows`` (memories and episodes together) carry the entity (an index-only count)."""
        return self._df(
            "entities",
            rows,
            entity,
            lambda: int(
                self.store.query_one(
                    "SELECT count(*) FROM entities INDEXED BY entities_by_name WHERE entity = ?", (entity,)
                )[0]
            ),
        )

    # ------------------------------------------------------------ speakers and neighbours
    def speaker_names(self, caller: Caller, now: str) -> tuple[str, ...]:
        """The distinct speaker names among the caller's visible episodes (cached per store version)."""
        version = self.version()
        key = (caller, now[:16])
        with self._lock:
            hit = self._speakers.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]
        rows = self.store.query(
            "SELECT DISTINCT e.source_name FROM episodes e WHERE e.source_name IS NOT NULL "
            f"AND {access.episode_predicate('e')}",
            access.params(caller, now),
        )
        names = tuple(sorted({str(r[0]).strip() for r in rows if str(r[0]).strip()}))
        with self._lock:
            if len(self._speakers) > 64:
                self._speakers.clear()
            self._speakers[key] = (version, names)
        return names

    def _speakers_of(self, ids: list[str]) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for chunk in chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            for r in self.store.query(f"SELECT id, source_name FROM episodes WHERE id IN ({marks})", chunk):
                out[r[0]] = r[1]
        return out

    def _neighbours(self, ids: list[str], caller: Caller, now: str) -> dict[str, list[str]]:
        """The adjacent turns (same session, turn index ± 1) of each episode, among those the caller may see."""
        out: dict[str, list[str]] = {}
        for chunk in chunks(ids, 500):
            params: dict[str, Any] = {
                **access.params(caller, now),
                **{f"c{i}": d for i, d in enumerate(chunk)},
            }
            marks = ",".join(f":c{i}" for i in range(len(chunk)))
            rows = self.store.query(
                "SELECT c.id, e.id FROM episodes c JOIN episodes e ON e.session_id = c.session_id "
                "AND e.turn_index IN (c.turn_index - 1, c.turn_index + 1) "
                f"WHERE c.id IN ({marks}) AND {access.episode_predicate('e')}",
                params,
            )
            for src, dst in rows:
                out.setdefault(src, []).append(dst)
        return out

    # ------------------------------------------------------------ ranking
    def rank(  # noqa: C901
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

        ``channels`` restricts the work to some of "dense", "dense_ctx", "bm25", "entity", "hyde",
        "speaker", "neighbours", "temporal" (these three act on episodes), "memory_ctx" and "links" (on memories),
        and "hop" (the second hop, core/recall/hops.py); by default all of them run (memory_ctx, hyde, links
        and hop do no work at weight or decay 0).
        """
        moment = iso(now or datetime.now(UTC))
        route = route or route_for(query)
        if route not in ROUTES:
            raise ValueError(f"unknown route {route!r}")
        cfg = self.config
        depth = {"memory": n or cfg.memory_candidates, "episode": n or cfg.candidates}
        channels = channels if channels is not None else cfg.channels
        use = (
            set(channels)
            if channels is not None
            else {
                *cfg.weights,
                *cfg.episode_weights,
                "speaker",
                "neighbours",
                "links",
                "temporal",
                "hop",
                "substance",
            }
        )
        # The query is embedded on another thread while the lexical channels run here: the model
        # and SQLite both release the GIL, so on two cores the two costs overlap.
        embedding = self._embedding(query) if {"dense", "dense_ctx", "memory_ctx"} & use else None
        kinds = MEMORY_KINDS_BY_ROUTE[route]
        units = (["memory"] if kinds else []) + (["episode"] if route in ("raw", "dual") else [])
        speakers: tuple[str, ...] = ()
        if "episode" in units and {"entity", "speaker", "hop"} & use | (
            {"bm25"} if cfg.bm25_without_speakers else set()
        ):
            speakers = self.speaker_names(caller, moment)
        # Every turn carries its speaker's name, so a speaker named in the query is no entity
        # to match among episodes; the speaker rule below uses it instead.
        speaker_words = frozenset(w for name in speakers for w in entities(name) | {name.casefold()})
        lexical: dict[str, list[str]] = {}
        for unit in units:
            if "bm25" in use:
                lexical[f"{unit}:bm25"] = self._bm25(
                    unit,
                    query,
                    caller,
                    kinds,
                    include_archived,
                    moment,
                    depth[unit],
                    speaker_words if unit == "episode" and cfg.bm25_without_speakers else frozenset(),
                )
            if "entity" in use:
                drop = speaker_words if unit == "episode" else frozenset()
                lexical[f"{unit}:entity"] = self._entity(
                    unit, query, caller, kinds, include_archived, moment, depth[unit], drop
                )
        qvec = embedding.result()[0] if embedding is not None else None
        hvec = self._hypothesis(query) if "hyde" in use and cfg.weights.get("hyde", 0.0) > 0 else None
        rankings: dict[str, list[str]] = {}
        for unit in units:
            if "dense" in use and qvec is not None:
                allowed = self._allowed_ids(unit, caller, kinds, include_archived, moment)
                rankings[f"{unit}:dense"] = self._dense(unit, qvec, allowed, depth[unit])
                if unit == "episode" and "dense_ctx" in use:
                    rankings["episode:dense_ctx"] = self._dense("episode_ctx", qvec, allowed, depth[unit])
            if (
                unit == "memory"
                and "memory_ctx" in use
                and cfg.weights.get("memory_ctx", 0.0) > 0
                and qvec is not None
            ):
                allowed = self._allowed_ids(unit, caller, kinds, include_archived, moment)
                ctx_ranked = self._dense("memory_ctx", qvec, allowed, depth[unit])
                if ctx_ranked:  # only once the linker has written context vectors
                    rankings["memory:memory_ctx"] = ctx_ranked
            if hvec is not None:
                allowed = self._allowed_ids(unit, caller, kinds, include_archived, moment)
                rankings[f"{unit}:hyde"] = self._dense(unit, hvec, allowed, depth[unit])
            for channel in ("bm25", "entity"):
                if f"{unit}:{channel}" in lexical:
                    rankings[f"{unit}:{channel}"] = lexical[f"{unit}:{channel}"]
        weights = {name: self._weight(name) for name in rankings}
        scores = weighted_rrf(rankings, weights, cfg.rrf_k)
        if "episode" in units:
            scores = self._episode_rules(scores, query, caller, moment, use, speakers)
            if "temporal" in use and cfg.temporal_weight:
                scores = self._temporal(scores, query, caller, moment)
        if "episode" in units and "substance" in use and cfg.short_turn_factor < 1.0:
            scores = self._substance(scores, caller, moment)
        if "hop" in use and cfg.hop_weight:
            scores = hops.second_hop(
                self,
                scores,
                query,
                caller,
                units=units,
                kinds=kinds,
                include_archived=include_archived,
                moment=moment,
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
        ranks: dict[str, dict[str, int]] = {}
        for name, ranked in rankings.items():
            for r, d in enumerate(ranked, start=1):
                ranks.setdefault(d, {})[name.split(":", 1)[1]] = r
        return route, scores, ranks

    def _embedding(self, query: str) -> Future[npt.NDArray[np.float32]]:
        """The query's embedding, started on another thread. The last one is reused when the same
        query is ranked again at once (the raw fill-in of a search and the answer ladder do)."""
        key = (self.embedder.name, query)
        with self._lock:
            last = self._last_embedding
        if last is not None and last[0] == key and not (last[1].done() and last[1].exception() is not None):
            return last[1]
        future = _embed_later(self.embedder, query)
        with self._lock:
            self._last_embedding = (key, future)
        return future

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
                    scores, self._speakers_of(ep_ids), named[0], cfg.speaker_weight, cfg.rrf_k
                )
        if "neighbours" in use and cfg.neighbour_decay:
            ep_scores = {d: s for d, s in scores.items() if d.startswith("ep_")}
            if ep_scores:
                grown = expand_neighbours(
                    ep_scores, self._neighbours(list(ep_scores), caller, moment), cfg.neighbour_decay
                )
                scores = {**scores, **grown}
        return scores

    def _substance(self, scores: dict[str, float], caller: Caller, moment: str) -> dict[str, float]:
        """Short turns that say little of their own ("Thanks, see you soon!") rarely hold what a question
        asks for: among the best ``short_turn_top`` turns, one with fewer than ``short_turn_terms``
        content words keeps ``short_turn_factor`` of its score."""
        cfg = self.config
        top = sorted((d for d in scores if d.startswith("ep_")), key=lambda d: -scores[d])[
            : cfg.short_turn_top
        ]
        out = dict(scores)
        for d, text in self._texts("episode", top, caller, False, moment).items():
            if _substance(text) < cfg.short_turn_terms:
                out[d] *= cfg.short_turn_factor
        return out

    # ------------------------------------------------------------ the time a question asks about
    def _latest_time(self, caller: Caller, now: str) -> str | None:
        """The latest event time among the caller's visible episodes (cached per store version)."""
        version = self.version()
        key = (caller, now[:16])
        with self._lock:
            hit = self._latest.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]
        row = self.store.query_one(
            f"SELECT max(e.event_time) FROM episodes e WHERE {access.episode_predicate('e')}",
            access.params(caller, now),
        )
        latest = str(row[0]) if row and row[0] else None
        with self._lock:
            if len(self._latest) > 64:
                self._latest.clear()
            self._latest[key] = (version, latest)
        return latest

    def _event_day(self, what: str, caller: Caller, now: str) -> date | None:
        """The day of the event ``what`` names ("Alice's birthday"): the date the best-matching turn
        states, else the day it was told."""
        found = self._bm25("episode", what, caller, (), False, now, 1)
        if not found:
            return None
        row = self.store.query_one(
            f"SELECT e.content, e.event_time FROM episodes e WHERE e.id = :id AND {access.episode_predicate('e')}",
            {**access.params(caller, now), "id": found[0]},
        )
        told = periods.as_day(row[1]) if row else None
        if row is None or told is None:
            return None
        stated = periods.stated_days(str(row[0]), datetime.fromisoformat(str(row[1])))
        return stated[0].start if stated else told

    def _temporal(
        self, scores: dict[str, float], query: str, caller: Caller, moment: str
    ) -> dict[str, float]:
        """The date-fit channel: when the query names a time, the candidate turns whose session was
        held in it (or in the week after, when it is told of), or whose words state a date in it, are
        ranked in their fused order as one more channel of weight ``temporal_weight``."""
        asked = asked_time(query)
        if asked is None:
            return scores
        anchor = periods.as_day(self._latest_time(caller, moment))
        if anchor is None:
            return scores
        period = periods.resolve(asked, anchor, lambda what: self._event_day(what, caller, moment))
        if period is None:
            return scores
        ranked = sorted((d for d in scores if d.startswith("ep_")), key=lambda d: -scores[d])
        read_words = set(ranked[:_STATED_TOP])  # reading dates out of words costs about 1 ms a turn
        fits: set[str] = set()
        for chunk in chunks(ranked, 500):
            params: dict[str, Any] = {
                **access.params(caller, moment),
                **{f"c{i}": d for i, d in enumerate(chunk)},
            }
            marks = ",".join(f":c{i}" for i in range(len(chunk)))
            rows = self.store.query(
                f"SELECT e.id, e.event_time, e.content FROM episodes e WHERE e.id IN ({marks}) "
                f"AND {access.episode_predicate('e')}",
                params,
            )
            fits.update(
                ep_id
                for ep_id, event_time, content in rows
                if _fits(period, event_time, content, stated=ep_id in read_words)
            )
        cfg = self.config
        out = dict(scores)
        for r, d in enumerate((d for d in ranked if d in fits), start=1):
            out[d] += cfg.temporal_weight / (cfg.rrf_k + r)
        return out

    def _hypothesis(self, query: str) -> npt.NDArray[np.float32] | None:
        """The vector of a model's hypothetical answer, or None (no model, or it failed: fail open)."""
        if self.hypothesise is None:
            return None
        try:
            text = self.hypothesise(query)
        except Exception:  # the channel is optional; search never fails for it
            return None
        return self.embedder.embed([text])[0] if text and text.strip() else None

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
        params: dict[str, Any] = {
            **access.params(caller, moment),
            **{f"s{i}": d for i, d in enumerate(seeds)},
            **{f"k{i}": k for i, k in enumerate(kinds)},
            **{f"t{i}": t for i, t in enumerate(LINK_TYPES)},
        }
        in_seeds = ",".join(f":s{i}" for i in range(len(seeds)))
        in_kinds = ",".join(f":k{i}" for i in range(len(kinds)))
        in_types = ",".join(f":t{i}" for i in range(len(LINK_TYPES)))
        pred = access.memory_predicate("m", include_archived=include_archived)
        rows = self.store.query(
            f"SELECT l.src, l.dst FROM links l JOIN memory_items m ON m.id = l.dst WHERE l.src IN ({in_seeds}) "
            f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred} "
            f"UNION SELECT l.dst, l.src FROM links l JOIN memory_items m ON m.id = l.src WHERE l.dst IN ({in_seeds}) "
            f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred}",
            params,
        )
        # A linked memory gains a share of its best seed's score; the seeds keep their own order.
        chosen = set(seeds)
        gift: dict[str, float] = {}
        for src, dst in rows:
            if dst not in chosen:
                gift[dst] = max(gift.get(dst, 0.0), self.config.link_decay * scores[src])
        return {**scores, **{d: scores.get(d, 0.0) + g for d, g in gift.items()}}


class _VersionView:
    """The store as a vector cache sees it, at the engine's version (see ``SearchEngine._version``)."""

    def __init__(self, store: Store, version: int) -> None:
        self._store = store
        self._version = version
        self.lock = (
            store.lock
        )  # a refresh takes the store's lock before the cache's (core/storage/vectors.py)

    def data_version(self) -> int:
        return self._version

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        return self._store.query(sql, params)

    def query_one(self, sql: str, params: Any = ()) -> Any:
        return self._store.query_one(sql, params)


_EMBED_POOL: ThreadPoolExecutor | None = None
_EMBED_POOL_LOCK = threading.Lock()


def _embed_later(embedder: Embedder, query: str) -> Future[npt.NDArray[np.float32]]:
    """The query's embedding, computed on a small shared pool of threads."""
    global _EMBED_POOL
    with _EMBED_POOL_LOCK:
        if _EMBED_POOL is None:
            _EMBED_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="veramem-query-embed")
        pool = _EMBED_POOL
    return pool.submit(embedder.embed, [query])


#: words without which a turn states no date (a cheap filter before the date rules run)
_MAY_STATE_DATE = re.compile(
    r"\b(?:\d{4}|yesterday|ago|(?:last|next|this|past|coming)\s+(?:week|weekend|month|year|\w+day)|"
    r"january|february|march|april|june|july|august|september|october|november|december|May)\b",
    re.I,
)


#: the best candidates whose words are read for stated dates (the rest fit by their session's date only)
_STATED_TOP = 100


def _fits(period: periods.Period, event_time: str, content: str, *, stated: bool = True) -> bool:
    """Whether a turn's session was held in the period (or just after it), or its words state a date in it."""
    told = periods.as_day(event_time)
    if told is None:
        return False
    if period.told_in(told):
        return True
    return (
        stated
        and bool(_MAY_STATE_DATE.search(content))
        and any(periods.overlaps(period, p) for p in _stated(content, event_time))
    )


@lru_cache(maxsize=4096)
def _stated(content: str, event_time: str) -> tuple[periods.Period, ...]:
    """The dates a turn states (episodes are immutable, so each is read once)."""
    return tuple(periods.stated_days(content, datetime.fromisoformat(event_time)))


@lru_cache(maxsize=8192)
def _substance(content: str) -> int:
    """How many distinct content words a turn holds."""
    return len(content_terms(content))


def chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
