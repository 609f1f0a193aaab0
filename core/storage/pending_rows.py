"""Episodes waiting to have memories derived from them (the ``pending_derivations`` table, ids only).

An add queues its episodes in the transaction that stores them and clears them once their memories
are derived, so a derivation that fails (or a process killed while deriving) leaves them queued for
``consolidate``. Each statement inserts or deletes its own rows: there is no read-modify-write of a
shared list, so concurrent adds from several processes never lose each other's ids.
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store


def queue(conn: Connection, episode_ids: Sequence[str]) -> None:
    """Queue ``episode_ids`` (inside the caller's transaction); one already queued stays as it was."""
    now = now_iso()
    conn.executemany(
        "INSERT OR IGNORE INTO pending_derivations(episode_id, queued_at) VALUES (?, ?)",
        [(eid, now) for eid in episode_ids],
    )


def clear(conn: Connection, episode_ids: Sequence[str]) -> None:
    """Take ``episode_ids`` off the queue (derived, or gone)."""
    if episode_ids:
        conn.execute(f"DELETE FROM pending_derivations WHERE episode_id {IN_IDS}", (ids_param(episode_ids),))


def queued(store: Store) -> list[str]:
    """The queued episode ids, oldest first; those queued together in the order they were stored (an
    add's messages in their order, never in the order of their ids' random bits)."""
    return [
        episode_id
        for (episode_id,) in store.query(
            "SELECT p.episode_id FROM pending_derivations p LEFT JOIN episodes e ON e.id = p.episode_id "
            "ORDER BY p.queued_at, e.rowid, p.episode_id"
        )
    ]
