"""Reads of what expires: ``metadata.expires_at`` on memories and episodes (core/lifecycle/expiry.py).

An expiry is written with the rows it marks (an episode's metadata when it is stored, a
memory's through core/storage/items.py) and erased with them by ``forget``; these are the
reads that find what is due, what is still to come and the earliest time anything expires.
Times are canonical ISO text, so they compare as strings. What counts as expired is the visibility
rule's (core/storage/visibility.py), so the sweep erases exactly what reads already hide.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from veramem_desktop.core.storage import visibility
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store


def earliest_after(conn: Connection, now: str) -> str | None:
    """The earliest expiry after ``now`` of an unpinned memory or of an episode, or None. An expiry already
    passed is not counted: its rows are hidden at read time (core/storage/visibility.py), and one the sweep
    kept (a later statement with no expiry supports it) must not make every search sweep again."""
    row = conn.execute(
        "SELECT min(t) FROM (SELECT json_extract(metadata, '$.expires_at') AS t FROM memory_items WHERE pinned = 0 "
        "UNION ALL SELECT json_extract(metadata, '$.expires_at') FROM episodes) WHERE t > ?",
        (now,),
    ).fetchone()
    return str(row[0]) if row and row[0] else None


def expired_chains(store: Store, now: str) -> list[tuple[str, str]]:
    """``(root id, its first version's id)`` of each chain whose every version is expired by ``now`` under the
    visibility rule: a chain with a version that is pinned, has no expiry, or stands on a message that has
    not lapsed is kept (its expired versions stay hidden)."""
    return [
        (root_id, first_id)
        for root_id, first_id in store.query(
            f"SELECT m.root_id, min(m.id) FROM memory_items m WHERE {visibility.memory_expired('m')} "
            f"AND NOT EXISTS (SELECT 1 FROM memory_items o WHERE o.root_id = m.root_id "
            f"AND NOT {visibility.memory_expired('o')}) GROUP BY m.root_id ORDER BY m.root_id",
            {"now": now},
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
        episode_id
        for (episode_id,) in store.query(
            f"SELECT e.id FROM episodes e WHERE {visibility.lapsed('e')} "
            "AND NOT EXISTS (SELECT 1 FROM evidence v WHERE v.episode_id = e.id) ORDER BY e.id",
            {"now": now},
        )
    ]


class Expiring(NamedTuple):
    """An active memory that expires: its id, kind, words, when it expires and whether it is pinned."""

    id: str
    kind: str
    text: str
    expires_at: str
    pinned: int


def active_expiring(store: Store, before: str, user_id: str | None) -> list[Expiring]:
    """The active memories (of ``user_id`` when given) that expire by ``before``, soonest first; those
    expired already are hidden (core/storage/visibility.py)."""
    columns = select_list(Expiring._fields, "m", expires_at="json_extract(m.metadata, '$.expires_at') AS t")
    sql = (
        f"SELECT {columns} FROM memory_items m "
        f"WHERE m.status = 'active' AND t IS NOT NULL AND t <= :before AND NOT {visibility.memory_expired('m')}"
    )
    params: dict[str, Any] = {"before": before, "now": now_iso()}
    if user_id is not None:
        sql += " AND m.user_id = :user"
        params["user"] = user_id
    return [Expiring._make(r) for r in store.query(sql + " ORDER BY t, m.id", params)]
