"""Search index rows: every statement that reads or writes the search indexes.

The full-text tables (``fts_rows`` naming what each rowid indexes, ``episode_fts`` and
``memory_fts``), ``entities`` and ``embeddings`` are written here only: a new episode's or
memory's full-text row (:func:`add_fts`, called by ``episodes.insert``, ``items.insert`` and the
import of an export), the vectors and entities :mod:`.index` computes for what this device
writes, a turn's full-text row rewritten and its neighbours' context vectors dropped when
``forget`` erases a turn (core/lifecycle/turn_repair.py), and an owner's rows erased with it.

Rows that arrive from another device carry their vectors (the receiver needs no model) and are
indexed here, many at once: FTS rows with the rowids the caller gives them, entity rows and
vector rows, each a list of values for one ``executemany``. The write path reads back the line
vectors it stored (:func:`stored_vectors`) to build a turn's context vector. Search reads the
full-text and entity indexes here too (counts, and the BM25 and entity rankings), the access
predicate (core/storage/access.py) in each statement that returns rows a caller could be shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.store import Connection, Store

FTS_TABLES = {"episode": "episode_fts", "memory": "memory_fts"}


def add_fts(conn: Connection, owner_kind: str, owner_id: str, text: str) -> None:
    """The full-text row of one new episode or memory: its owner row (a new rowid) and its text."""
    cur = conn.execute("INSERT INTO fts_rows(owner_kind, owner_id) VALUES (?, ?)", (owner_kind, owner_id))
    conn.execute(f"INSERT INTO {FTS_TABLES[owner_kind]}(rowid, text) VALUES (?, ?)", (cur.lastrowid, text))


def rewrite_episode_fts(conn: Connection, rowid: int, text: str) -> None:
    """Replace the full-text row ``rowid`` of an episode with ``text`` (its owner row is kept)."""
    conn.execute("DELETE FROM episode_fts WHERE rowid = ?", (rowid,))
    conn.execute("INSERT INTO episode_fts(rowid, text) VALUES (?, ?)", (rowid, text))


def replace_vectors(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """``(vector kind, owner_id, model, blob)`` rows computed here (one already there is replaced)."""
    conn.executemany(
        "INSERT OR REPLACE INTO embeddings(owner_kind, owner_id, model, vector) VALUES (?,?,?,?)", values
    )


def remove_vector(conn: Connection, vector_kind: str, owner_id: str) -> None:
    """Erase one vector variant of one owner (e.g. a turn's context vector, to be recomputed)."""
    conn.execute("DELETE FROM embeddings WHERE owner_kind = ? AND owner_id = ?", (vector_kind, owner_id))


def remove_owner_rows(conn: Connection, owner_kind: str, vector_kinds: Sequence[str], owner_id: str) -> None:
    """Erase every index row of one owner: its vectors of ``vector_kinds``, its entities, its full-text row."""
    conn.execute(
        f"DELETE FROM embeddings WHERE owner_kind IN ({','.join('?' * len(vector_kinds))}) AND owner_id = ?",
        (*vector_kinds, owner_id),
    )
    conn.execute("DELETE FROM entities WHERE owner_kind = ? AND owner_id = ?", (owner_kind, owner_id))
    row = conn.execute(
        "SELECT rowid FROM fts_rows WHERE owner_kind = ? AND owner_id = ?", (owner_kind, owner_id)
    ).fetchone()
    if row is not None:
        conn.execute(f"DELETE FROM {FTS_TABLES[owner_kind]} WHERE rowid = ?", (row[0],))
        conn.execute("DELETE FROM fts_rows WHERE rowid = ?", (row[0],))


def last_fts_rowid(conn: Connection) -> int:
    """The largest FTS rowid so far (0 with none): the next is this plus one while the write lock is held."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM fts_rows").fetchone()[0])


def insert_fts_owners(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """``(rowid, owner_kind, owner_id)`` rows naming what each FTS rowid indexes."""
    conn.executemany("INSERT INTO fts_rows(rowid, owner_kind, owner_id) VALUES (?, ?, ?)", values)


def insert_fts_texts(conn: Connection, owner_kind: str, values: Sequence[Sequence[Any]]) -> None:
    """``(rowid, text)`` rows of the episode or memory full-text index."""
    conn.executemany(f"INSERT INTO {FTS_TABLES[owner_kind]}(rowid, text) VALUES (?, ?)", values)


def insert_entities(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """``(owner_kind, owner_id, entity)`` rows (one already there is kept)."""
    conn.executemany("INSERT OR IGNORE INTO entities(owner_kind, owner_id, entity) VALUES (?,?,?)", values)


def insert_vectors(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """``(vector kind, owner_id, model, blob)`` rows (one already there is kept)."""
    conn.executemany(
        "INSERT OR IGNORE INTO embeddings(owner_kind, owner_id, model, vector) VALUES (?,?,?,?)", values
    )


def vectors_of(conn: Connection, owner_id: str) -> list[tuple[str, str, bytes]]:
    """Every stored vector of one owner as ``(vector kind, model, blob)``, in a stable order."""
    return [
        (str(owner_kind), str(model), bytes(vector))
        for owner_kind, model, vector in conn.execute(
            "SELECT owner_kind, model, vector FROM embeddings WHERE owner_id = ? ORDER BY owner_kind, model",
            (owner_id,),
        ).fetchall()
    ]


def owners_without(
    store: Store, vector_kind: str, model: str, limit: int, *, skip: Sequence[str] = (), after: int = 0
) -> list[str]:
    """Up to ``limit`` owners (not in ``skip``) holding a ``vector_kind`` vector from another model but
    none from ``model``; with ``after``, only owners whose other vector was stored after that rowid
    (:func:`last_vector_rowid` once gave it)."""
    # with ``after``, the rows after it are read by rowid ('+' keeps the planner off the kind's index scan)
    kind, newer = ("+e.owner_kind", " AND e.rowid > ?") if after else ("e.owner_kind", "")
    rows = store.query(
        f"SELECT DISTINCT e.owner_id FROM embeddings e WHERE {kind} = ? AND e.model != ? AND NOT EXISTS "
        "(SELECT 1 FROM embeddings f WHERE f.owner_kind = e.owner_kind AND f.owner_id = e.owner_id "
        f"AND f.model = ?) AND e.owner_id NOT IN ({','.join('?' * len(skip))}){newer} LIMIT ?",
        (vector_kind, model, model, *skip, *([after] if after else []), limit),
    )
    return [owner_id for (owner_id,) in rows]


def last_vector_rowid(store: Store) -> int:
    """The rowid of the vector stored last (0 with none): rows stored later have larger ones."""
    row = store.query_one("SELECT coalesce(max(rowid), 0) FROM embeddings")
    return 0 if row is None else int(row[0])


def count_owners_without(store: Store, vector_kind: str, model: str) -> int:
    """How many owners hold a ``vector_kind`` vector from another model but none from ``model``."""
    row = store.query_one(
        "SELECT count(DISTINCT e.owner_id) FROM embeddings e WHERE e.owner_kind = ? AND e.model != ? AND NOT EXISTS "
        "(SELECT 1 FROM embeddings f WHERE f.owner_kind = e.owner_kind AND f.owner_id = e.owner_id AND f.model = ?)",
        (vector_kind, model, model),
    )
    return 0 if row is None else int(row[0])


def owners_with(store: Store, vector_kind: str, model: str, owner_ids: Sequence[str]) -> list[str]:
    """Those of ``owner_ids`` that hold a ``vector_kind`` vector from ``model``."""
    return [owner_id for owner_id, _ in stored_vectors(store, vector_kind, model, owner_ids)]


def vector_models(store: Store) -> dict[str, int]:
    """How many vectors each model holds in the store."""
    rows = store.query("SELECT model, count(*) FROM embeddings GROUP BY model")
    return {model: int(count) for model, count in rows}


def remove_other_models(conn: Connection, model: str) -> int:
    """Drop every vector not from ``model`` (after the store was re-embedded with it); how many."""
    return int(conn.execute("DELETE FROM embeddings WHERE model != ?", (model,)).rowcount)


def stored_vectors(
    store: Store, vector_kind: str, model: str, owner_ids: Sequence[str]
) -> list[tuple[str, bytes]]:
    """``(owner_id, blob)`` of the ``vector_kind`` vectors from ``model`` of those of ``owner_ids`` (one ``?``
    per id) that have one."""
    marks = ",".join("?" * len(owner_ids))
    return [
        (owner_id, vector)
        for owner_id, vector in store.query(
            f"SELECT owner_id, vector FROM embeddings WHERE owner_kind = ? AND model = ? AND owner_id IN ({marks})",
            (vector_kind, model, *owner_ids),
        )
    ]


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


def _memories_seen(sight: access.Sight, params: dict[str, Any]) -> str:
    """The condition on memories ``m`` the sight allows (the access predicate and the kinds asked for), its
    parameters added to ``params``."""
    params.update({f"k{i}": k for i, k in enumerate(sight.kinds)})
    return (
        f"{access.memory_predicate('m', include_archived=sight.include_archived)} "
        f"AND m.kind IN ({','.join(':k' + str(i) for i in range(len(sight.kinds)))})"
    )


def fts_ranked_ids(store: Store, unit: str, match: str, sight: access.Sight, n: int, deep: int) -> list[str]:
    """The rows the caller may see that the full-text query ``match`` finds, best BM25 first."""
    params: dict[str, Any] = {**access.params(sight.caller, sight.now), "match": match, "n": n, "deep": deep}
    if unit == "memory":
        sql = (
            "WITH f AS MATERIALIZED (SELECT rowid AS rid, bm25(memory_fts) AS score FROM memory_fts "
            "WHERE memory_fts MATCH :match ORDER BY score LIMIT :deep) "
            "SELECT m.id FROM f CROSS JOIN fts_rows r ON r.rowid = f.rid AND r.owner_kind = 'memory' "
            "CROSS JOIN memory_items m ON m.id = r.owner_id "
            f"WHERE {_memories_seen(sight, params)} ORDER BY f.score, f.rid LIMIT :n"
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
    store: Store, unit: str, names: tuple[str, ...], sight: access.Sight, n: int, deep: int
) -> list[str]:
    """The rows the caller may see that carry the entity ``names`` (not empty), most matches first."""
    owner_kind = "memory" if unit == "memory" else "episode"
    params: dict[str, Any] = {
        **access.params(sight.caller, sight.now),
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
        sql = (
            matches + "SELECT m.id FROM en CROSS JOIN memory_items m ON m.id = en.owner_id "
            f"WHERE {_memories_seen(sight, params)} ORDER BY en.c DESC, m.created_at DESC LIMIT :n"
        )
    else:
        sql = (
            matches + "SELECT e.id FROM en CROSS JOIN episodes e ON e.id = en.owner_id "
            f"WHERE {access.episode_predicate('e')} ORDER BY en.c DESC, e.event_time DESC LIMIT :n"
        )
    return [r[0] for r in store.query(sql, params)]


def embedded_ids(store: Store, owner_kind: str, model: str) -> list[str]:
    """Ids of the ``owner_kind`` rows (memory, episode) that hold a vector from ``model``."""
    rows = store.query(
        "SELECT owner_id FROM embeddings WHERE owner_kind = ? AND model = ?", (owner_kind, model)
    )
    return [owner_id for (owner_id,) in rows]


def vector_model(store: Store) -> str | None:
    """The model id of one stored vector (a store's vectors come from one model), or ``None`` when it holds none."""
    row = store.query_one("SELECT model FROM embeddings LIMIT 1")
    return None if row is None else str(row[0])
