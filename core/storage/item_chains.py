"""Version chains of memories and what was made from what: the head of a chain, its standing
version, its ids, and the memories derived from one (a merge or fusion).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.id_sets import chunks, marks
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem, row_to_item
from veramem_desktop.core.storage.store import Connection, Store


def chain_visible(store: Store, memory_id: str, caller: Caller, now: str) -> bool:
    """True when some version of the chain of ``memory_id`` passes the access predicate for ``caller``
    at ``now`` (archived versions included)."""
    pred = access.memory_predicate("m", include_archived=True)
    row = store.query_one(
        f"SELECT 1 FROM memory_items m WHERE m.root_id = "
        f"(SELECT root_id FROM memory_items WHERE id = :target) AND {pred} LIMIT 1",
        {**access.params(caller, now), "target": memory_id},
    )
    return row is not None


def chain_order(store: Store, user_id: str | None) -> list[tuple[str, str]]:
    """``(id, root_id)`` of every memory (``user_id``'s only, when given), chain by chain, oldest version first."""
    sql = "SELECT id, root_id FROM memory_items"
    params: list[Any] = []
    if user_id is not None:
        sql += " WHERE user_id = ?"
        params.append(user_id)
    rows = store.query(sql + " ORDER BY root_id, version, created_at", params)
    return [(memory_id, root_id) for memory_id, root_id in rows]


def active_head(conn: Connection, root_id: str) -> MemoryItem | None:
    """The newest active version of the chain ``root_id``, or None."""
    row = conn.execute(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE root_id = ? AND status = 'active' "
        "ORDER BY version DESC LIMIT 1",
        (root_id,),
    ).fetchone()
    return row_to_item(row) if row is not None else None


def standing_version(store: Store, item_id: str) -> MemoryItem | None:
    """The newest active, unrejected version of the chain ``item_id`` belongs to, or None."""
    row = store.query_one(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE root_id = (SELECT root_id FROM memory_items WHERE id = ?) "
        "AND status = 'active' AND trust != 'rejected' ORDER BY version DESC LIMIT 1",
        (item_id,),
    )
    return row_to_item(row) if row is not None else None


def chain_ids(conn: Connection, root_id: str) -> list[str]:
    """Every version's id of the chain ``root_id``."""
    rows = conn.execute("SELECT id FROM memory_items WHERE root_id = ?", (root_id,)).fetchall()
    return [memory_id for (memory_id,) in rows]


def active_by_root(store: Store, roots: list[str]) -> list[Any]:
    """The rows (root, id) of the active, not rejected memories of the given version chains."""
    found: list[Any] = []
    for chunk in chunks(roots, 500):
        found.extend(
            store.query(
                f"SELECT root_id, id FROM memory_items WHERE status = 'active' "
                f"AND trust != 'rejected' AND root_id IN ({marks(chunk)})",
                chunk,
            )
        )
    return found


def merged_into(store: Store, source_id: str, kinds: Sequence[str]) -> MemoryItem | None:
    """An active, unrejected memory of one of ``kinds`` made from ``source_id`` (a merge), or None."""
    row = store.query_one(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id IN (SELECT derived_id FROM derivations WHERE "
        f"source_id = ?) AND kind IN ({marks(kinds)}) AND status = 'active' AND trust != 'rejected' LIMIT 1",
        (source_id, *kinds),
    )
    return row_to_item(row) if row is not None else None


def newest_derived(store: Store, source_id: str) -> Any:
    """The row (id, status) of the newest memory derived from ``source_id`` (a merge or fusion), or None."""
    return store.query_one(
        "SELECT d.derived_id, m.status FROM derivations d JOIN memory_items m "
        "ON m.id = d.derived_id WHERE d.source_id = ? ORDER BY m.created_at DESC LIMIT 1",
        (source_id,),
    )
