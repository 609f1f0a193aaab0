"""Search index rows of episodes and memories made on another device, written in bulk.

:mod:`.index` indexes what this device writes (FTS rows with the item, vectors and entities
beside it). Rows that arrive from another device carry their vectors (the receiver needs no
model) and are indexed here, many at once: FTS rows with the rowids the caller gives them,
entity rows and vector rows, each a list of values for one ``executemany``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage.store import Connection

FTS_TABLES = {"episode": "episode_fts", "memory": "memory_fts"}


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
        (str(r[0]), str(r[1]), bytes(r[2]))
        for r in conn.execute(
            "SELECT owner_kind, model, vector FROM embeddings WHERE owner_id = ? ORDER BY owner_kind, model",
            (owner_id,),
        ).fetchall()
    ]
