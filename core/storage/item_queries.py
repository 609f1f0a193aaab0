"""Reads of memories and their evidence for trust, the write path and transfer.

The item family's writes and its reads by id, version and list are in core/storage/items.py;
these are the reads that review and reads-by-caller (core/trust/), planning and applying an add
(core/write/), and the memory and training exports and the import (core/transfer/) make. A
function taking a ``Connection`` reads inside the caller's transaction; one taking the ``Store``
reads on its own. The caller's visibility is the access predicate (core/trust/access.py), in
the statement's own SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage import visibility
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem, row_to_item
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import access
from veramem_desktop.core.trust.access import Caller


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


# ------------------------------------------------------------------ one memory
def find(conn: Connection, memory_id: str) -> MemoryItem | None:
    """The memory ``memory_id`` as the caller's transaction sees it, or None."""
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    return row_to_item(row) if row is not None else None


def status_and_trust(conn: Connection, memory_id: str) -> tuple[str, str] | None:
    """The memory's status and trust, or None when it is gone."""
    row = conn.execute("SELECT status, trust FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else (row[0], row[1])


def user_of(store: Store, memory_id: str) -> str | None:
    """The user the memory was recorded for (None when it is not here or was recorded for no user)."""
    row = store.query_one("SELECT user_id FROM memory_items WHERE id = :target", {"target": memory_id})
    return None if row is None else row[0]


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


# ------------------------------------------------------------------ review and the write path
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


def current_with_key(
    conn: Connection,
    *,
    user_id: str | None,
    team_id: str | None,
    subject: str,
    predicate: str,
    other_than: str,
) -> list[MemoryItem]:
    """The active, unrejected memories of one scope whose subject and predicate are these (compared
    without case), ``other_than`` left out."""
    rows = conn.execute(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust != 'rejected' "
        "AND user_id IS ? AND team_id IS ? AND lower(subject) = lower(?) AND lower(predicate) = lower(?) "
        "AND id != ?",
        (user_id, team_id, subject, predicate, other_than),
    ).fetchall()
    return [row_to_item(row) for row in rows]


def rejected_keys(
    store: Store, user_id: str | None, team_id: str | None
) -> list[tuple[str, str | None, str | None]]:
    """``(id, subject, predicate)`` of every rejected memory of one scope."""
    rows = store.query(
        "SELECT id, subject, predicate FROM memory_items WHERE trust = 'rejected' AND user_id IS ? AND team_id IS ?",
        (user_id, team_id),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def current_ids_with_key(
    store: Store, user_id: str | None, team_id: str | None, subject: str, predicate: str
) -> list[str]:
    """Ids of the active, unrejected memories of one scope with exactly this subject and predicate."""
    return [
        r[0]
        for r in store.query(
            "SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND user_id IS ? "
            "AND team_id IS ? AND subject = ? AND predicate = ?",
            (user_id, team_id, subject, predicate),
        )
    ]


def keyed_versions(
    store: Store, user_id: str, subject: str, predicates: Sequence[str], limit: int = 50
) -> list[tuple[str, str, str | None, str, str]]:
    """``(id, predicate, value, status, valid_from)`` of the unrejected memories of ``user_id``'s own scope
    stating one of ``predicates`` of ``subject`` that held for a time: current, replaced, or ended
    (retracted with the day it stopped), newest first."""
    if not predicates:
        return []
    marks = ",".join("?" * len(predicates))
    rows = store.query(
        "SELECT id, predicate, value, status, valid_from FROM memory_items WHERE user_id = ? AND team_id IS NULL "
        f"AND subject = ? AND predicate IN ({marks}) AND trust != 'rejected' AND (status IN ('active', "
        "'superseded') OR (status = 'retracted' AND valid_to IS NOT NULL)) ORDER BY valid_from DESC LIMIT ?",
        (user_id, subject, *predicates, limit),
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def current_ids_in_scope(store: Store, user_id: str | None, team_id: str | None) -> list[str]:
    """Ids of the active, unrejected memories of one scope, summaries left out."""
    return [
        r[0]
        for r in store.query(
            "SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND kind != 'summary' "
            "AND user_id IS ? AND team_id IS ?",
            (user_id, team_id),
        )
    ]


# ------------------------------------------------------------------ exports and the import
def briefs(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
    """``(id, kind, text, authority, status)`` of those of ``ids`` that are here (one ``?`` per id)."""
    rows = conn.execute(
        f"SELECT id, kind, text, authority, status FROM memory_items WHERE id IN ({_marks(ids)})", list(ids)
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def any_rejected(conn: Connection, ids: Sequence[str]) -> bool:
    """Whether any of ``ids`` (one ``?`` per id) is a rejected memory."""
    row = conn.execute(
        f"SELECT 1 FROM memory_items WHERE trust = 'rejected' AND id IN ({_marks(ids)}) LIMIT 1", list(ids)
    ).fetchone()
    return bool(row)


def chain_order(store: Store, user_id: str | None) -> list[tuple[str, str]]:
    """``(id, root_id)`` of every memory (``user_id``'s only, when given), chain by chain, oldest version first."""
    sql = "SELECT id, root_id FROM memory_items"
    params: list[Any] = []
    if user_id is not None:
        sql += " WHERE user_id = ?"
        params.append(user_id)
    return [(r[0], r[1]) for r in store.query(sql + " ORDER BY root_id, version, created_at", params)]


def evidence_rows(
    store: Store, memory_ids: Sequence[str]
) -> list[tuple[str, str, str, int, int, float, str]]:
    """``(memory_id, episode_id, quote, span_start, span_end, score, role)`` of the evidence of
    ``memory_ids`` (one ``?`` per id), in the order it was recorded."""
    rows = store.query(
        "SELECT memory_id, episode_id, quote, span_start, span_end, score, role FROM evidence "
        f"WHERE memory_id IN ({_marks(memory_ids)}) ORDER BY id",
        list(memory_ids),
    )
    return [(r[0], r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows]


def quoted_episodes(store: Store, memory_ids: Sequence[str]) -> set[str]:
    """The episodes the evidence of ``memory_ids`` (one ``?`` per id) stands in."""
    return {
        r[0]
        for r in store.query(
            f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({_marks(memory_ids)})",
            list(memory_ids),
        )
    }


def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` (one ``?`` per id) that are memories here."""
    if not ids:
        return set()
    return {r[0] for r in store.query(f"SELECT id FROM memory_items WHERE id IN ({_marks(ids)})", list(ids))}
