"""Derivations: which memory was made from which (a merge, a summary, a shared copy, an experience).

An edge ``derived_id ← source_id`` lets ``forget`` reach everything made from what it erases.
Edges are a set: adding one that is already there changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from veramem_desktop.core.storage.store import Connection, Store

_ADD = "INSERT OR IGNORE INTO derivations(derived_id, source_id) VALUES (?, ?)"


def add(conn: Connection, derived_id: str, source_ids: Sequence[str]) -> None:
    """Record that ``derived_id`` was made from each of ``source_ids``."""
    conn.executemany(_ADD, [(derived_id, source) for source in source_ids])


def add_first(conn: Connection, derived_id: str, source_id: str) -> None:
    """Record the first source of ``derived_id``, a memory made just now (an edge already there is an error)."""
    conn.execute("INSERT INTO derivations(derived_id, source_id) VALUES (?, ?)", (derived_id, source_id))


def add_pairs(conn: Connection, pairs: Iterable[Sequence[str]]) -> None:
    """Record many ``(derived_id, source_id)`` edges in one statement."""
    conn.executemany(_ADD, pairs)


def sources_of(conn: Connection, derived_id: str) -> list[str]:
    """What ``derived_id`` was made from, in id order."""
    return [
        str(source_id)
        for (source_id,) in conn.execute(
            "SELECT source_id FROM derivations WHERE derived_id = ? ORDER BY source_id", (derived_id,)
        ).fetchall()
    ]


def source_ids(store: Store, derived_id: str) -> set[str]:
    """What ``derived_id`` was made from, read on its own (outside a transaction)."""
    return {
        source_id
        for (source_id,) in store.query(
            "SELECT source_id FROM derivations WHERE derived_id = ?", (derived_id,)
        )
    }


def pairs_of(store: Store, derived_ids: Sequence[str]) -> list[tuple[str, str]]:
    """``(derived_id, source_id)`` of the edges of ``derived_ids`` (one ``?`` each: pass a few hundred at a
    time), ordered by source."""
    return [
        (derived_id, source_id)
        for derived_id, source_id in store.query(
            f"SELECT derived_id, source_id FROM derivations WHERE derived_id IN "
            f"({','.join('?' * len(derived_ids))}) ORDER BY source_id",
            list(derived_ids),
        )
    ]


def all_pairs(store: Store) -> list[tuple[str, str]]:
    """Every edge as ``(derived_id, source_id)``, ordered (the replicated state devices compare)."""
    return [
        (str(derived_id), str(source_id))
        for derived_id, source_id in store.query(
            "SELECT derived_id, source_id FROM derivations ORDER BY derived_id, source_id"
        )
    ]
