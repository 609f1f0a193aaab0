"""Memory items and their evidence as plain rows: column values by name, the same on every device.

:mod:`.items` makes and changes memories (a version, a retraction, a merge) and records each
change in the ledger. This module reads and writes the rows as they are, with their ids, for
rows made on another device (sync lands them through :mod:`.landing`): the caller decides
what to write and records it. A row is a dict in ``ITEM_FIELDS`` order holding the stored
values (``metadata`` as its JSON text, flags as integers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.items import ITEM_COLUMNS
from veramem_desktop.core.storage.store import Connection, Store

ITEM_FIELDS = [c.strip() for c in ITEM_COLUMNS.split(",")]
#: evidence columns as they travel with a memory (its memory_id is the memory's)
EVIDENCE_FIELDS = ["episode_id", "quote", "span_start", "span_end", "score", "role", "created_at"]
#: the columns of a memory that change after it is inserted (the rest never do)
MUTABLE_FIELDS = frozenset(
    {
        "visibility",
        "trust",
        "status",
        "valid_to",
        "confidence",
        "retrieval_strength",
        "importance",
        "last_used_at",
        "shareable",
        "pinned",
        "metadata",
        "updated_at",
        "uses",
        "successes",
        "failures",
    }
)


def row(conn: Connection, memory_id: str) -> dict[str, Any] | None:
    found = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    return None if found is None else dict(zip(ITEM_FIELDS, found, strict=True))


def rows_by_id(conn: Connection, memory_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The rows of those of ``memory_ids`` that are here, in one query."""
    return {
        r[0]: dict(zip(ITEM_FIELDS, r, strict=True))
        for r in conn.execute(
            f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id {IN_IDS}", (ids_param(memory_ids),)
        )
    }


def exists(store: Store, memory_id: str) -> bool:
    return store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (memory_id,)) is not None


def insert_rows(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """Insert memories made elsewhere, each a list of values in ``ITEM_FIELDS`` order."""
    conn.executemany(_INSERT, values)


_INSERT = f"INSERT INTO memory_items({ITEM_COLUMNS}) VALUES ({','.join('?' * len(ITEM_FIELDS))})"


def set_row_fields(conn: Connection, memory_id: str, changes: dict[str, Any]) -> None:
    """Set mutable columns to values decided elsewhere, as stored values (the caller records it)."""
    unknown = set(changes) - MUTABLE_FIELDS
    if unknown:
        raise ValueError(f"not a mutable memory column: {sorted(unknown)}")
    conn.execute(
        f"UPDATE memory_items SET {', '.join(f'{k} = ?' for k in changes)} WHERE id = ?",
        [*changes.values(), memory_id],
    )


#: memory_items columns by type affinity (the rest are TEXT)
_REAL = frozenset({"confidence", "retrieval_strength", "importance", "successes", "failures"})
_INTEGER = frozenset({"version", "uses", "shareable", "pinned"})
_AFFINITY: dict[str, type] = {**dict.fromkeys(_REAL, float), **dict.fromkeys(_INTEGER, int)}


def as_stored(values: dict[str, Any]) -> dict[str, Any] | None:
    """Memory column values as SQLite keeps them (an int in a REAL column comes back a float, a bool
    in an INTEGER column an int), or None for a value of another type (then read the row back).
    Knowing this spares reading rows back with ``RETURNING``: that opens a statement journal, and
    FTS5 flushes its pending index at every one (a segment per row instead of one per transaction)."""
    out: dict[str, Any] = {}
    affinity = _AFFINITY.get
    for name, value in values.items():
        column = affinity(name)
        if value is None or (column is None and isinstance(value, str)):
            out[name] = value
        elif column is float and isinstance(value, int | float):
            out[name] = float(value)
        elif column is int and isinstance(value, int):
            out[name] = int(value)
        else:
            return None
    return out


def all_rows(store: Store) -> list[Sequence[Any]]:
    """Every memory's columns (``ITEM_FIELDS``), by id."""
    return list(store.query(f"SELECT {ITEM_COLUMNS} FROM memory_items ORDER BY id"))


# --- evidence ------------------------------------------------------------------------------

#: what makes two pieces of evidence the same (evidence is a set)
EVIDENCE_KEY = ("episode_id", "quote", "span_start", "span_end")


def evidence_rows(conn: Connection, memory_id: str) -> list[dict[str, Any]]:
    """The memory's evidence (``EVIDENCE_FIELDS``), in the order it was added."""
    found = conn.execute(
        f"SELECT {', '.join(EVIDENCE_FIELDS)} FROM evidence WHERE memory_id = ? ORDER BY id", (memory_id,)
    ).fetchall()
    return [dict(zip(EVIDENCE_FIELDS, r, strict=True)) for r in found]


def evidence_keys(conn: Connection, memory_ids: Iterable[str]) -> dict[str, set[tuple[Any, ...]]]:
    """Each memory's evidence keys (:data:`EVIDENCE_KEY`), in one query; a memory with none is left out."""
    out: dict[str, set[tuple[Any, ...]]] = {}
    for mid, *key in conn.execute(
        f"SELECT memory_id, {', '.join(EVIDENCE_KEY)} FROM evidence WHERE memory_id {IN_IDS}",
        (ids_param(memory_ids),),
    ):
        out.setdefault(mid, set()).add(tuple(key))
    return out


def evidence_keys_of(conn: Connection, memory_id: str) -> set[tuple[Any, ...]]:
    return {
        tuple(r)
        for r in conn.execute(
            f"SELECT {', '.join(EVIDENCE_KEY)} FROM evidence WHERE memory_id = ?", (memory_id,)
        )
    }


def insert_evidence(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """Insert evidence rows, each ``[memory_id, *EVIDENCE_FIELDS values]``."""
    conn.executemany(_INSERT_EVIDENCE, values)


_INSERT_EVIDENCE = f"INSERT INTO evidence(memory_id, {', '.join(EVIDENCE_FIELDS)}) VALUES ({','.join('?' * (1 + len(EVIDENCE_FIELDS)))})"


def all_evidence(store: Store) -> list[Sequence[Any]]:
    """Every piece of evidence as ``(memory_id, episode_id, quote, span_start, span_end, score, role)``,
    in a stable order (the creation time is left out)."""
    return list(
        store.query(
            "SELECT memory_id, episode_id, quote, span_start, span_end, score, role FROM evidence "
            "ORDER BY memory_id, episode_id, span_start, span_end, quote"
        )
    )
