"""The access-checked SQL behind every recall channel: each query here that returns rows a caller
could be shown carries the access predicate (core/trust/access.py) in its own SQL, never as a
post-filter, so reading this one module is how to check invariant 6.

- the ids a caller may see (the rows the dense channel scores), cached per store version;
- the BM25 and entity channels' candidate queries (the words and names to match come from
  core/recall/lexical.py);
- the words of given rows, their speakers and neighbouring turns, the latest event time, the
  dates of given turns, and the typed links from given memories.

It also keeps the store's data version as the channels see it: this engine's own trace writes
do not move it, so every cache built on it (here and in the dense and lexical channels) stays
valid across them.
"""

from __future__ import annotations

import threading
from typing import Any

from veramem_desktop.core.lifecycle.links import LINK_TYPES
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.trust import access
from veramem_desktop.core.trust.access import Caller


class Candidates:
    """The candidate queries of one store, with the access predicate in each one's SQL. Holds the
    per-caller allowed sets, speakers and latest event times, each valid for one store version."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._allowed: dict[tuple[Any, ...], tuple[int, list[str]]] = {}
        self._speakers: dict[tuple[Any, ...], tuple[int, tuple[str, ...]]] = {}
        self._latest: dict[tuple[Any, ...], tuple[int, str | None]] = {}
        #: (version before, version after) this engine's last trace write, when nothing else wrote
        self._alias: tuple[int, int] | None = None
        self._lock = threading.Lock()

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
    def allowed_ids(
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

    # ------------------------------------------------------------ the lexical channels' rows
    def _deep(self, n: int) -> int:
        """How many raw full-text or entity matches are ranked before the access predicate and the
        kinds filter keep the caller's ``n``: enough for every store of one person, and it keeps the
        joins from running over every match of a common word."""
        return max(5 * n, 1000)

    def bm25(
        self,
        unit: str,
        match: str,
        caller: Caller,
        kinds: tuple[str, ...],
        include_archived: bool,
        now: str,
        n: int,
    ) -> list[str]:
        """The rows the caller may see that the full-text query ``match`` finds, best BM25 first."""
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

    def entity(
        self,
        unit: str,
        names: tuple[str, ...],
        caller: Caller,
        kinds: tuple[str, ...],
        include_archived: bool,
        now: str,
        n: int,
    ) -> list[str]:
        """The rows the caller may see that carry the entity ``names`` (not empty), most matches first."""
        owner_kind = "memory" if unit == "memory" else "episode"
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

    # ------------------------------------------------------------ what given rows hold
    def texts(
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

    def speakers_of(self, ids: list[str]) -> dict[str, str | None]:
        """The speaker of each of the given episodes (ids already ranked for the caller)."""
        out: dict[str, str | None] = {}
        for chunk in chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            for r in self.store.query(f"SELECT id, source_name FROM episodes WHERE id IN ({marks})", chunk):
                out[r[0]] = r[1]
        return out

    def neighbours(self, ids: list[str], caller: Caller, now: str) -> dict[str, list[str]]:
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

    # ------------------------------------------------------------ the times turns were told
    def latest_time(self, caller: Caller, now: str) -> str | None:
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

    def told(self, episode_id: str, caller: Caller, now: str) -> Any:
        """The row (content, event time) of one episode the caller may see, or None."""
        return self.store.query_one(
            f"SELECT e.content, e.event_time FROM episodes e WHERE e.id = :id AND {access.episode_predicate('e')}",
            {**access.params(caller, now), "id": episode_id},
        )

    def told_all(self, ids: list[str], caller: Caller, now: str) -> list[Any]:
        """The rows (id, event time, content) of the given episodes that the caller may see."""
        found: list[Any] = []
        for chunk in chunks(ids, 500):
            params: dict[str, Any] = {
                **access.params(caller, now),
                **{f"c{i}": d for i, d in enumerate(chunk)},
            }
            marks = ",".join(f":c{i}" for i in range(len(chunk)))
            found.extend(
                self.store.query(
                    f"SELECT e.id, e.event_time, e.content FROM episodes e WHERE e.id IN ({marks}) "
                    f"AND {access.episode_predicate('e')}",
                    params,
                )
            )
        return found

    # ------------------------------------------------------------ typed links
    def linked(
        self, seeds: list[str], caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str
    ) -> list[Any]:
        """The rows (seed, linked memory), one for each typed link between a seed and a memory the caller may see."""
        params: dict[str, Any] = {
            **access.params(caller, now),
            **{f"s{i}": d for i, d in enumerate(seeds)},
            **{f"k{i}": k for i, k in enumerate(kinds)},
            **{f"t{i}": t for i, t in enumerate(LINK_TYPES)},
        }
        in_seeds = ",".join(f":s{i}" for i in range(len(seeds)))
        in_kinds = ",".join(f":k{i}" for i in range(len(kinds)))
        in_types = ",".join(f":t{i}" for i in range(len(LINK_TYPES)))
        pred = access.memory_predicate("m", include_archived=include_archived)
        return self.store.query(
            f"SELECT l.src, l.dst FROM links l JOIN memory_items m ON m.id = l.dst WHERE l.src IN ({in_seeds}) "
            f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred} "
            f"UNION SELECT l.dst, l.src FROM links l JOIN memory_items m ON m.id = l.src WHERE l.dst IN ({in_seeds}) "
            f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred}",
            params,
        )


def chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
