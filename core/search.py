"""The search path: access predicate → routing → dense + BM25 + entity channels →
weighted reciprocal rank fusion → priors → temporal order → shared block → trace.

No LLM call. Every channel's SQL carries the access predicate, and the dense
channel scores only the rows that predicate allowed, so nothing a caller may not
see is ever ranked.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from . import access
from .access import Caller
from .fusion import max_rrf, prior, weighted_rrf
from .ids import iso, new_id, parse_iso
from .protocols import Embedder
from .store import Store
from .textproc import content_terms, entities, fts_query, route_for, temporal_intent
from .vectors import VectorCache

MEMORY_KINDS_BY_ROUTE = {
    "facts": ("fact", "preference", "event", "experience"),
    "dual": ("fact", "preference", "event", "experience", "summary"),
    "summaries": ("summary", "experience"),
    "raw": (),
}
ROUTES = tuple(MEMORY_KINDS_BY_ROUTE)


@dataclass
class SearchConfig:
    """Search expressed as data: channel weights, sizes and prior strengths."""

    k: int = 10
    candidates: int = 100
    rrf_k: int = 60
    weights: dict[str, float] = field(
        default_factory=lambda: {"dense": 1.0, "bm25": 1.0, "entity": 0.5, "dense_ctx": 1.0}
    )
    utility_lambda: float = 0.2
    recency_weight: float = 0.01
    shared_k: int = 3
    #: with the facts route, raw episodes fill in when fewer memories than this share of k are found
    raw_fill_share: float = 0.5


@dataclass
class Hit:
    id: str
    kind: str  # a memory kind, or "episode"
    text: str
    score: float
    authority: str
    trust: str = "verified"
    status: str = "active"
    time: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    source: str | None = None
    channels: dict[str, int] = field(default_factory=dict)
    root_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SearchResult:
    trace_id: str
    route: str
    results: list[Hit]
    shared: list[Hit]
    temporal: str | None = None
    took_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "route": self.route,
            "temporal": self.temporal,
            "results": [h.to_dict() for h in self.results],
            "shared": [h.to_dict() for h in self.shared],
            "took_ms": round(self.took_ms, 2),
        }


_EPISODE_AUTHORITY = {"user": "authorized", "system": "authorized", "assistant": "attested"}


class SearchEngine:
    """Holds the vector caches and the per-caller allowed sets for one store."""

    def __init__(self, store: Store, embedder: Embedder, config: SearchConfig | None = None) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config or SearchConfig()
        self.caches = {
            kind: VectorCache(kind, embedder.name, embedder.dim) for kind in ("memory", "episode", "episode_ctx")
        }
        self._allowed: dict[tuple[Any, ...], tuple[int, list[str]]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------ allowed sets
    def _allowed_ids(self, unit: str, caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str) -> list[str]:
        version = self.store.data_version()
        key = (unit, caller, kinds, include_archived, now[:16])
        with self._lock:
            hit = self._allowed.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]
        if unit == "memory":
            sql = (f"SELECT m.id FROM memory_items m WHERE {access.memory_predicate('m', include_archived=include_archived)}"
                   f" AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))})")
            params = {**access.params(caller, now), **{f"k{i}": k for i, k in enumerate(kinds)}}
        else:
            sql = f"SELECT e.id FROM episodes e WHERE {access.episode_predicate('e')}"
            params = access.params(caller, now)
        ids = [r[0] for r in self.store.query(sql, params)]
        with self._lock:
            if len(self._allowed) > 64:
                self._allowed.clear()
            self._allowed[key] = (version, ids)
        return ids

    # ------------------------------------------------------------ channels
    def _dense(self, cache_kind: str, qvec: npt.NDArray[np.float32], allowed: list[str], n: int) -> list[str]:
        cache = self.caches[cache_kind]
        cache.refresh(self.store)
        return [i for i, _ in cache.top(qvec, cache.positions(allowed), n)]

    def _bm25(self, unit: str, query: str, caller: Caller, kinds: tuple[str, ...], include_archived: bool,
              now: str, n: int) -> list[str]:
        match = fts_query(query)
        if match is None:
            return []
        params: dict[str, Any] = {**access.params(caller, now), "match": match, "n": n}
        if unit == "memory":
            params.update({f"k{i}": k for i, k in enumerate(kinds)})
            sql = (
                "SELECT m.id FROM memory_fts f JOIN fts_rows r ON r.rowid = f.rowid AND r.owner_kind = 'memory' "
                "JOIN memory_items m ON m.id = r.owner_id "
                f"WHERE memory_fts MATCH :match AND {access.memory_predicate('m', include_archived=include_archived)} "
                f"AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))}) "
                "ORDER BY bm25(memory_fts) LIMIT :n"
            )
        else:
            sql = (
                "SELECT e.id FROM episode_fts f JOIN fts_rows r ON r.rowid = f.rowid AND r.owner_kind = 'episode' "
                "JOIN episodes e ON e.id = r.owner_id "
                f"WHERE episode_fts MATCH :match AND {access.episode_predicate('e')} "
                "ORDER BY bm25(episode_fts) LIMIT :n"
            )
        return [r[0] for r in self.store.query(sql, params)]

    def _entity(self, unit: str, query: str, caller: Caller, kinds: tuple[str, ...], include_archived: bool,
                now: str, n: int) -> list[str]:
        names = sorted(entities(query))
        if not names:
            return []
        params: dict[str, Any] = {**access.params(caller, now), "n": n}
        params.update({f"en{i}": e for i, e in enumerate(names)})
        in_names = ",".join(f":en{i}" for i in range(len(names)))
        if unit == "memory":
            params.update({f"k{i}": k for i, k in enumerate(kinds)})
            sql = (
                "SELECT m.id, count(*) AS c FROM entities en JOIN memory_items m ON m.id = en.owner_id "
                f"WHERE en.owner_kind = 'memory' AND en.entity IN ({in_names}) "
                f"AND {access.memory_predicate('m', include_archived=include_archived)} "
                f"AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))}) "
                "GROUP BY m.id ORDER BY c DESC, m.created_at DESC LIMIT :n"
            )
        else:
            sql = (
                "SELECT e.id, count(*) AS c FROM entities en JOIN episodes e ON e.id = en.owner_id "
                f"WHERE en.owner_kind = 'episode' AND en.entity IN ({in_names}) AND {access.episode_predicate('e')} "
                "GROUP BY e.id ORDER BY c DESC, e.event_time DESC LIMIT :n"
            )
        return [r[0] for r in self.store.query(sql, params)]

    # ------------------------------------------------------------ search
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
        """Fused relevance per id (memories and episodes), before priors. Returns (route, scores, ranks)."""
        moment = iso(now or datetime.now(UTC))
        route = route or route_for(query)
        if route not in ROUTES:
            raise ValueError(f"unknown route {route!r}")
        cfg = self.config
        n = n or cfg.candidates
        use = set(channels or cfg.weights)
        qvec = self.embedder.embed([query])[0] if {"dense", "dense_ctx"} & use else None
        rankings: dict[str, list[str]] = {}
        kinds = MEMORY_KINDS_BY_ROUTE[route]
        units = (["memory"] if kinds else []) + (["episode"] if route in ("raw", "dual") else [])
        for unit in units:
            if "dense" in use and qvec is not None:
                allowed = self._allowed_ids(unit, caller, kinds, include_archived, moment)
                rankings[f"{unit}:dense"] = self._dense(unit, qvec, allowed, n)
                if unit == "episode" and "dense_ctx" in use:
                    rankings["episode:dense_ctx"] = self._dense("episode_ctx", qvec, allowed, n)
            if "bm25" in use:
                rankings[f"{unit}:bm25"] = self._bm25(unit, query, caller, kinds, include_archived, moment, n)
            if "entity" in use:
                rankings[f"{unit}:entity"] = self._entity(unit, query, caller, kinds, include_archived, moment, n)
        weights = {name: cfg.weights.get(name.split(":", 1)[1], 1.0) for name in rankings}
        scores = weighted_rrf(rankings, weights, cfg.rrf_k)
        scale = max_rrf(weights, [c for c in rankings if c.startswith(units[0] + ":")] if units else [], cfg.rrf_k)
        scores = {d: s / scale for d, s in scores.items()}
        ranks: dict[str, dict[str, int]] = {}
        for name, ranked in rankings.items():
            for r, d in enumerate(ranked, start=1):
                ranks.setdefault(d, {})[name.split(":", 1)[1]] = r
        return route, scores, ranks

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
        moment_dt = now or datetime.now(UTC)
        route, scores, ranks = self.rank(query, caller, route=route, include_archived=include_archived, now=moment_dt)
        hits = self._hydrate(scores, ranks, moment_dt)
        own = [h for h in hits if h.kind == "episode" or h.user_id == caller.user_id]
        if route == "facts" and len(own) < max(1, int(k * cfg.raw_fill_share)):
            _, raw_scores, raw_ranks = self.rank(query, caller, route="raw", now=moment_dt)
            hits += [h for h in self._hydrate(raw_scores, raw_ranks, moment_dt) if h.id not in scores]
            own = [h for h in hits if h.kind == "episode" or h.user_id == caller.user_id]
        shared = [h for h in hits if h.kind != "episode" and h.user_id != caller.user_id]
        own.sort(key=lambda h: -h.score)
        shared.sort(key=lambda h: -h.score)
        intent = temporal_intent(query)
        own = self._apply_temporal(own, intent)[:k]
        shared = shared[: cfg.shared_k]
        if intent.kind == "latest":
            own.sort(key=lambda h: h.time or "", reverse=True)
        elif intent.kind is not None:
            own.sort(key=lambda h: h.time or "")
        trace_id = new_id("tr")
        if write_trace:
            self._write_trace(trace_id, kind, caller, query, route, own + shared, {"temporal": intent.kind})
        return SearchResult(trace_id, route, own, shared, intent.kind, (time.perf_counter() - started) * 1000)

    def _apply_temporal(self, hits: list[Hit], intent: Any) -> list[Hit]:
        if intent.kind not in ("since", "before") or not intent.phrase:
            return hits
        try:
            from .dates import parse_time

            bound = iso(parse_time(intent.phrase))
        except Exception:  # an unreadable phrase leaves the results as they are
            return hits
        if intent.kind == "since":
            return [h for h in hits if (h.time or "") >= bound]
        return [h for h in hits if (h.time or "") < bound]

    def _hydrate(self, scores: dict[str, float], ranks: dict[str, dict[str, int]], now: datetime) -> list[Hit]:
        ids = list(scores)
        mem_ids = [i for i in ids if i.startswith("mem_")]
        ep_ids = [i for i in ids if i.startswith("ep_")]
        hits: list[Hit] = []
        cfg = self.config
        for chunk in _chunks(mem_ids, 500):
            marks = ",".join("?" * len(chunk))
            rows = self.store.query(
                "SELECT id, kind, text, authority, trust, status, valid_from, user_id, session_id, source, successes, "
                f"failures, retrieval_strength, root_id FROM memory_items WHERE id IN ({marks})", chunk)
            for r in rows:
                age = (now - parse_iso(r[6])).total_seconds() / 86400
                util = (float(r[10]) + 1.0) / (float(r[10]) + float(r[11]) + 2.0)
                bonus = prior(utility_value=util, age_days=age, trust=r[4], retrieval_strength=float(r[12]),
                              utility_lambda=cfg.utility_lambda, recency_weight=cfg.recency_weight)
                hits.append(Hit(r[0], r[1], r[2], scores[r[0]] + bonus, r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                                ranks.get(r[0], {}), r[13]))
        for chunk in _chunks(ep_ids, 500):
            marks = ",".join("?" * len(chunk))
            rows = self.store.query(
                f"SELECT id, content, role, event_time, user_id, session_id, source_name FROM episodes WHERE id IN ({marks})",
                chunk)
            for r in rows:
                hits.append(Hit(r[0], "episode", r[1], scores[r[0]], _EPISODE_AUTHORITY.get(r[2], "unendorsed"),
                                "verified", "active", r[3], r[4], r[5], r[6] or r[2], ranks.get(r[0], {})))
        return hits

    def _write_trace(self, trace_id: str, kind: str, caller: Caller, query: str, route: str, hits: list[Hit],
                     meta: dict[str, Any]) -> None:
        with self.store.atomic() as conn:
            conn.execute(
                "INSERT INTO traces(id, kind, created_at, user_id, agent_id, query, route, returned_ids, metadata)"
                " VALUES (?,?,?,?,?,?,?,?,?)",
                (trace_id, kind, iso(datetime.now(UTC)), caller.user_id, caller.agent_id, query, route,
                 json.dumps([h.id for h in hits]), json.dumps(meta)),
            )


def _chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def query_terms(query: str) -> list[str]:
    return content_terms(query)
