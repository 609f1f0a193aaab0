"""The link graph: typed edges between related memories of one scope, and cold storage.

An edge (``links``: source, destination, type, score) is written with a ledger entry
(``link.add``, ids only). The types a pair may get are ``LINK_TYPES``; two more,
``COLD_LINKS``, point from a memory to one it sent to cold storage: ``subsumes`` (a broader
memory, see the linker) and ``fused`` (a fused memory and its sources, core/lifecycle/merge.py).

A new memory is queued in ``pending_links`` by the facade right after an add; a
background worker drains the queue through the linker (core/lifecycle/linker.py), which
decides each memory's edges, so an add never waits for it.

Cold storage is a status change (``archived``) that records why and for whom. Cold items
are never deleted here; ``forget`` brings back those whose general memory it erased (see
core/lifecycle/forget.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.lifecycle.conflicts import in_open_conflict
from veramem_desktop.core.storage import items, ledger
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store

#: the types a model or the rules may give a pair of memories
LINK_TYPES = ("supports", "extends", "contrasts", "related", "prerequisite")
#: edges that point from a memory to the one it sent to cold storage (general → specific, fused → source)
COLD_LINKS = ("subsumes", "fused")
#: a memory that failed this many times stays queued but is no longer tried
MAX_ATTEMPTS = 5


# ------------------------------------------------------------------ the queue and edges
def enqueue(conn: Connection, memory_ids: Sequence[str]) -> None:
    """Queue memories for linking (call in the transaction that made them, or right after)."""
    now = now_iso()
    conn.executemany(
        "INSERT OR IGNORE INTO pending_links(memory_id, queued_at) VALUES (?, ?)",
        [(m, now) for m in memory_ids],
    )


def dequeue(conn: Connection, memory_id: str) -> None:
    """Take a memory off the queue (it is linked, or no longer needs linking)."""
    conn.execute("DELETE FROM pending_links WHERE memory_id = ?", (memory_id,))


def note_failure(conn: Connection, memory_id: str, error: str) -> None:
    """Count a failed attempt on a queued memory, keeping the error's name (it stays queued)."""
    conn.execute(
        "UPDATE pending_links SET attempts = attempts + 1, last_error = ? WHERE memory_id = ?",
        (error, memory_id),
    )


def pending(store: Store, *, limit: int = 100, max_attempts: int = MAX_ATTEMPTS) -> list[str]:
    rows = store.query(
        "SELECT memory_id FROM pending_links WHERE attempts < ? ORDER BY queued_at, memory_id LIMIT ?",
        (max_attempts, limit),
    )
    return [r[0] for r in rows]


def pending_count(store: Store) -> int:
    return int(store.query_one("SELECT count(*) FROM pending_links")[0])


def add_link(conn: Connection, src: str, dst: str, link_type: str, score: float, *, device: str) -> bool:
    """One typed edge, recorded in the ledger (ids and a commitment under the source's secret)."""
    if src == dst:
        return False
    cur = conn.execute(
        "INSERT OR IGNORE INTO links(src, dst, type, score, created_at) VALUES (?,?,?,?,?)",
        (src, dst, link_type, round(float(score), 4), now_iso()),
    )
    if cur.rowcount == 0:
        return False
    ledger.append(
        conn,
        op="link.add",
        target_kind="link",
        target_id=src,
        commitment_hex=ledger.commit_to(conn, src, {"link": [src, dst, link_type]}),
        device=device,
        details={"src": src, "dst": dst, "type": link_type},
    )
    return True


def keep_created_at(conn: Connection, src: str, dst: str, link_type: str, created_at: str) -> None:
    """Give an edge the time it was made elsewhere (an imported edge keeps its exported time)."""
    conn.execute(
        "UPDATE links SET created_at = ? WHERE src = ? AND dst = ? AND type = ?",
        (created_at, src, dst, link_type),
    )


def links_of(store: Store, memory_id: str) -> list[dict[str, Any]]:
    """Every edge touching ``memory_id``, each with the direction seen from it."""
    rows = store.query(
        "SELECT src, dst, type, score, created_at FROM links WHERE src = ? OR dst = ? "
        "ORDER BY created_at, src, dst",
        (memory_id, memory_id),
    )
    return [
        {
            "src": r[0],
            "dst": r[1],
            "type": r[2],
            "score": r[3],
            "created_at": r[4],
            "other": r[1] if r[0] == memory_id else r[0],
            "direction": "out" if r[0] == memory_id else "in",
        }
        for r in rows
    ]


def send_cold(conn: Connection, item_id: str, *, device: str, reason: str, by: str) -> MemoryItem | None:
    """Move an active, unpinned memory to cold storage (archived), saying why and for whom."""
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    if row is None:
        return None
    item = items.row_to_item(row)
    if item.status != "active" or item.pinned or in_open_conflict(conn, item_id):
        return None  # a claim in an open conflict stays in view until a person settles it
    return items.set_fields(
        conn,
        item_id,
        device=device,
        op="memory.archive",
        status="archived",
        metadata={"cold": reason, "cold_by": by},
        details={"reason": reason, "by": by},
    )
