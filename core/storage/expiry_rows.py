"""Reads of what expires: ``metadata.expires_at`` on memories and episodes (core/lifecycle/expiry.py).

An expiry is written with the rows it marks (an episode's metadata when it is stored, a
memory's through core/storage/items.py) and erased with them by ``forget``; these are the
reads that find what is due, what is still to come and the earliest time anything expires.
Times are canonical ISO text, so they compare as strings.
"""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage.store import Connection, Store


def earliest_after(conn: Connection, now: str) -> str | None:
    """The earliest expiry of an unpinned memory (any time) or of an episode (after ``now``), or None."""
    row = conn.execute(
        "SELECT min(t) FROM (SELECT json_extract(metadata, '$.expires_at') AS t FROM memory_items WHERE pinned = 0 "
        "UNION ALL SELECT json_extract(metadata, '$.expires_at') FROM episodes "
        "WHERE json_extract(metadata, '$.expires_at') > ?) WHERE t IS NOT NULL",
        (now,),
    ).fetchone()
    return str(row[0]) if row and row[0] else None


def expired_chains(store: Store, now: str) -> list[tuple[str, str]]:
    """``(root id, its first expired version's id)`` of each chain with an unpinned version expired by ``now``."""
    return [
        (r[0], r[1])
        for r in store.query(
            "SELECT root_id, min(id) FROM memory_items WHERE pinned = 0 "
            "AND json_extract(metadata, '$.expires_at') <= ? GROUP BY root_id ORDER BY root_id",
            (now,),
        )
    ]


def memory_exists(store: Store, memory_id: str) -> bool:
    """True while the memory is stored."""
    return store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (memory_id,)) is not None


def chain_pinned(store: Store, root_id: str) -> bool:
    """True when a version of the chain ``root_id`` is pinned."""
    return (
        store.query_one("SELECT 1 FROM memory_items WHERE root_id = ? AND pinned = 1", (root_id,)) is not None
    )


def expired_uncited_episodes(store: Store, now: str) -> list[str]:
    """Ids of the episodes expired by ``now`` that no memory cites, in id order."""
    return [
        r[0]
        for r in store.query(
            "SELECT e.id FROM episodes e WHERE json_extract(e.metadata, '$.expires_at') <= ? "
            "AND NOT EXISTS (SELECT 1 FROM evidence v WHERE v.episode_id = e.id) ORDER BY e.id",
            (now,),
        )
    ]


def active_expiring(store: Store, before: str, user_id: str | None) -> list[Any]:
    """``(id, kind, text, expires_at, pinned)`` of the active memories (of ``user_id`` when given) that
    expire by ``before``, soonest first."""
    sql = (
        "SELECT id, kind, text, json_extract(metadata, '$.expires_at') AS t, pinned FROM memory_items "
        "WHERE status = 'active' AND t IS NOT NULL AND t <= ?"
    )
    params: list[Any] = [before]
    if user_id is not None:
        sql += " AND user_id = ?"
        params.append(user_id)
    return store.query(sql + " ORDER BY t, id", params)
