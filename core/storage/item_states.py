"""What state memories are in: one memory by id and its status, trust and pin, the standing set
(active or in cold storage, not rejected), the review queue and recorded conflicts.

The item family's writes and its reads by id, version and list are in core/storage/items.py. A
function taking a ``Connection`` reads inside the caller's transaction; one taking the ``Store``
reads on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import visibility
from veramem_desktop.core.storage.id_sets import marks
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem, row_to_item
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.vocabulary import Status


def find(store: Store, item_id: str) -> MemoryItem | None:
    """The memory ``item_id``, or None when there is none."""
    row = store.query_one(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,))
    return row_to_item(row) if row is not None else None


def read(conn: Connection, item_id: str) -> MemoryItem | None:
    """The memory ``item_id`` as the caller's transaction sees it, or None."""
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    return row_to_item(row) if row is not None else None


def status_of(conn: Connection, item_id: str) -> str | None:
    """The memory's status, or None when it is gone."""
    row = conn.execute("SELECT status FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    return None if row is None else str(row[0])


def status_and_trust(conn: Connection, memory_id: str) -> tuple[str, str] | None:
    """The memory's status and trust, or None when it is gone."""
    row = conn.execute("SELECT status, trust FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    if row is None:
        return None
    status, trust = row
    return status, trust


class Standing(NamedTuple):
    """A memory's status and whether it is pinned."""

    status: str
    pinned: bool


def status_and_pinned(conn: Connection, item_id: str) -> Standing | None:
    """The memory's status and whether it is pinned, or None when it is gone."""
    row = conn.execute("SELECT status, pinned FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        return None
    status, pinned = row
    return Standing(status=str(status), pinned=bool(pinned))


def user_of(store: Store, memory_id: str) -> str | None:
    """The user the memory was recorded for (None when it is not here or was recorded for no user)."""
    row = store.query_one("SELECT user_id FROM memory_items WHERE id = :target", {"target": memory_id})
    return None if row is None else row[0]


def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` (one ``?`` per id) that are memories here."""
    if not ids:
        return set()
    return {
        memory_id
        for (memory_id,) in store.query(f"SELECT id FROM memory_items WHERE id IN ({marks(ids)})", list(ids))
    }


def briefs(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
    """``(id, kind, text, authority, status)`` of those of ``ids`` that are here (one ``?`` per id)."""
    rows = conn.execute(
        f"SELECT id, kind, text, authority, status FROM memory_items WHERE id IN ({marks(ids)})", list(ids)
    ).fetchall()
    return [(memory_id, kind, text, authority, status) for memory_id, kind, text, authority, status in rows]


def any_rejected(conn: Connection, ids: Sequence[str]) -> bool:
    """Whether any of ``ids`` (one ``?`` per id) is a rejected memory."""
    row = conn.execute(
        f"SELECT 1 FROM memory_items WHERE trust = 'rejected' AND id IN ({marks(ids)}) LIMIT 1", list(ids)
    ).fetchone()
    return bool(row)


def count_active(conn: Connection, ids: Sequence[str]) -> int:
    """How many of ``ids`` are active memories."""
    row = conn.execute(
        f"SELECT count(*) FROM memory_items WHERE status = 'active' AND id IN ({marks(ids)})", list(ids)
    ).fetchone()
    return int(row[0])


def count_standing(conn: Connection, ids: Sequence[str]) -> int:
    """How many of ``ids`` are standing memories (active or archived, not rejected)."""
    row = conn.execute(
        f"SELECT count(*) FROM memory_items WHERE id IN ({marks(ids)}) AND status IN ('active', 'archived') "
        "AND trust != 'rejected'",
        list(ids),
    ).fetchone()
    return int(row[0])


def standing_ids(conn: Connection, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are standing memories."""
    return {
        memory_id
        for (memory_id,) in conn.execute(
            f"SELECT id FROM memory_items WHERE id IN ({marks(ids)}) "
            "AND status IN ('active', 'archived') AND trust != 'rejected'",
            list(ids),
        ).fetchall()
    }


def standing(
    store: Store,
    *,
    statuses: Sequence[str] = (Status.ACTIVE,),
    kinds: Sequence[str] = (),
    unpinned: bool = False,
    in_session: bool = False,
    derived: bool = False,
    created_since: str | None = None,
    unfused: bool = False,
) -> list[MemoryItem]:
    """Unrejected memories of ``statuses`` in time order, narrowed to ``kinds``, unpinned ones, those of
    a session, those consolidation wrote (``derived``), those made since ``created_since``, and those
    not fused from others (``unfused``), as asked."""
    sql = (
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status IN ({marks(statuses)}) AND trust != 'rejected'"
    )
    params: list[Any] = [*statuses]
    if kinds:
        sql += f" AND kind IN ({marks(kinds)})"
        params += kinds
    for wanted, clause in (
        (unpinned, "pinned = 0"),
        (in_session, "session_id IS NOT NULL"),
        (derived, "source = 'derived'"),
        (created_since is not None, "created_at >= ?"),
        (unfused, "json_extract(metadata, '$.fused_from') IS NULL"),
    ):
        if wanted:
            sql += f" AND {clause}"
    if created_since is not None:
        params.append(created_since)
    return [row_to_item(r) for r in store.query(sql + " ORDER BY valid_from, id", params)]


def cold_by_any(conn: Connection, ids: Sequence[str]) -> list[str]:
    """Unrejected memories in cold storage that one of ``ids`` sent there (``metadata.cold_by``)."""
    return [
        memory_id
        for (memory_id,) in conn.execute(
            f"SELECT id FROM memory_items WHERE status = 'archived' AND trust != 'rejected' "
            f"AND json_extract(metadata, '$.cold_by') IN ({marks(ids)})",
            list(ids),
        ).fetchall()
    ]


def conflict_records(conn: Connection, memory_id: str | None = None) -> list[tuple[str, str | None]]:
    """``(id, recorded partners as JSON)`` of each standing memory that records a conflict (only
    ``memory_id``, when given)."""
    sql = (
        "SELECT id, json_extract(metadata, '$.conflicts_with') FROM memory_items "
        "WHERE metadata LIKE '%conflicts_with%' AND status IN ('active', 'archived') AND trust != 'rejected'"
    )
    rows = conn.execute(sql) if memory_id is None else conn.execute(sql + " AND id = ?", (memory_id,))
    return [(mid, partners) for mid, partners in rows.fetchall()]


def review_queue(store: Store, *, user_id: str | None, limit: int) -> list[MemoryItem]:
    """Active candidates a person has to decide on (a lower-authority claim, a recorded conflict, or a
    memory withheld because it resembles a rejected value), newest first; ``user_id``'s only when given.
    An expired one waits for no one (the visibility rule, core/storage/visibility.py)."""
    sql = (
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust = 'candidate' "
        "AND (authority != 'authorized' OR metadata LIKE '%conflicts_with%' "
        "OR id IN (SELECT owner_id FROM withheld WHERE owner_kind = 'memory' AND reason = 'resembles')) "
        f"AND NOT {visibility.memory_expired('memory_items')}"
    )
    params: dict[str, Any] = {"now": now_iso(), "limit": limit}
    if user_id is not None:
        sql += " AND user_id = :user"
        params["user"] = user_id
    sql += " ORDER BY created_at DESC LIMIT :limit"
    return [row_to_item(row) for row in store.query(sql, params)]


def any_current(store: Store, memory_ids: Sequence[str]) -> bool:
    """True when any of ``memory_ids`` is active and not rejected (a conflict with it is still open)."""
    if not memory_ids:
        return False
    row = store.query_one(
        f"SELECT 1 FROM memory_items WHERE id IN ({marks(memory_ids)}) AND status = 'active' AND trust != 'rejected' LIMIT 1",
        list(memory_ids),
    )
    return row is not None
