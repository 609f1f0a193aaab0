"""Recall's reads of the full-text and entity indexes (written by core/storage/index_rows.py).

- counts over a whole index (full-text rows of a unit, rows matching a word, rows carrying a
  name): counts only, no row leaves them; recall weighs words and names by them
  (core/recall/lexical.py);
- the BM25 and entity channels' ranked rows: each query carries the access predicate
  (core/storage/access.py) in its own SQL, never as a post-filter (invariant 6).

``unit`` is "memory" or "episode"; ``deep`` is how many raw matches are ranked before the access
predicate and the kinds filter keep the caller's ``n`` (core/recall/candidates.py decides it).
"""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.store import Store


def fts_row_count(store: Store, unit: str) -> int:
    """Full-text rows of the unit (memories or episodes)."""
    return int(store.query_one("SELECT count(*) FROM fts_rows WHERE owner_kind = ?", (unit,))[0])


def fts_match_count(store: Store, table: str, match: str | None) -> int:
    """How many rows of the full-text ``table`` the full-text query ``match`` finds (a count over the whole index)."""
    return int(store.query_one(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (match,))[0])


def fts_match_counts(store: Store, table: str, matches: list[str]) -> list[int]:
    """:func:`fts_match_count` of each full-text query in ``matches`` (not empty), in one statement."""
    counts = ", ".join(f"(SELECT count(*) FROM {table} WHERE {table} MATCH ?)" for _ in matches)
    return [int(c) for c in store.query_one(f"SELECT {counts}", matches)]


def entity_count(store: Store, entity: str) -> int:
    """How many rows (memories and episodes together) carry the entity (an index-only count)."""
    return int(
        store.query_one(
            "SELECT count(*) FROM entities INDEXED BY entities_by_name WHERE entity = ?", (entity,)
        )[0]
    )


def fts_ranked_ids(
    store: Store,
    unit: str,
    match: str,
    caller: Caller,
    kinds: tuple[str, ...],
    include_archived: bool,
    now: str,
    n: int,
    deep: int,
) -> list[str]:
    """The rows the caller may see that the full-text query ``match`` finds, best BM25 first."""
    params: dict[str, Any] = {**access.params(caller, now), "match": match, "n": n, "deep": deep}
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
    return [r[0] for r in store.query(sql, params)]


def entity_ranked_ids(
    store: Store,
    unit: str,
    names: tuple[str, ...],
    caller: Caller,
    kinds: tuple[str, ...],
    include_archived: bool,
    now: str,
    n: int,
    deep: int,
) -> list[str]:
    """The rows the caller may see that carry the entity ``names`` (not empty), most matches first."""
    owner_kind = "memory" if unit == "memory" else "episode"
    params: dict[str, Any] = {
        **access.params(caller, now),
        "n": n,
        "deep": deep,
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
    return [r[0] for r in store.query(sql, params)]
