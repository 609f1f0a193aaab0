"""The link graph: typed edges between related memories of one scope, and cold storage.

An edge (``links``: source, destination, type, score) is written with a ledger entry
(``link.add``, ids only). The types a pair may get are ``LINK_TYPES`` (core/text/link_types.py); two more,
``COLD_LINKS``, point from a memory to one it sent to cold storage: ``subsumes`` (a broader
memory, see the linker) and ``fused`` (a fused memory and its sources, core/lifecycle/merge.py).

A new memory is queued in ``pending_links`` by the facade right after an add; a
background worker drains the queue through the linker (core/lifecycle/linker.py), which
decides each memory's edges, so an add never waits for it.

The rows of both tables are read and written through core/storage/link_rows.py.

Cold storage is a status change (``archived``) that records why and for whom. Cold items
are never deleted here; ``forget`` brings back those whose general memory it erased (see
core/lifecycle/forget.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.lifecycle.conflicts import in_open_conflict
from veramem_desktop.core.storage import item_states, items, ledger, link_rows
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.vocabulary import Status

#: edges that point from a memory to the one it sent to cold storage (general → specific, fused → source)
COLD_LINKS = ("subsumes", "fused")
#: a memory that failed this many times stays queued but is no longer tried
MAX_ATTEMPTS = 5


# ------------------------------------------------------------------ the queue and edges
def enqueue(conn: Connection, memory_ids: Sequence[str]) -> None:
    """Queue memories for linking (call in the transaction that made them, or right after)."""
    link_rows.queue(conn, memory_ids, now_iso())


def dequeue(conn: Connection, memory_id: str) -> None:
    """Take a memory off the queue (it is linked, or no longer needs linking)."""
    link_rows.unqueue(conn, memory_id)


def note_failure(conn: Connection, memory_id: str, error: str) -> None:
    """Count a failed attempt on a queued memory, keeping the error's name (it stays queued)."""
    link_rows.count_failure(conn, memory_id, error)


def pending(store: Store, *, limit: int = 100, max_attempts: int = MAX_ATTEMPTS) -> list[str]:
    return link_rows.queued(store, limit=limit, max_attempts=max_attempts)


def pending_count(store: Store) -> int:
    return link_rows.queued_count(store)


def add_link(conn: Connection, src: str, dst: str, link_type: str, score: float, *, device: str) -> bool:
    """One typed edge, recorded in the ledger (ids and a commitment under the source's secret)."""
    if src == dst:
        return False
    if not link_rows.insert(conn, src, dst, link_type, round(float(score), 4), now_iso()):
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
    link_rows.set_created_at(conn, src, dst, link_type, created_at)


def links_of(store: Store, memory_id: str) -> list[dict[str, Any]]:
    """Every edge touching ``memory_id``, each with the direction seen from it."""
    rows = link_rows.touching(store, memory_id)
    return [
        {
            "src": e.src,
            "dst": e.dst,
            "type": e.type,
            "score": e.score,
            "created_at": e.created_at,
            "other": e.dst if e.src == memory_id else e.src,
            "direction": "out" if e.src == memory_id else "in",
        }
        for e in rows
    ]


def send_cold(conn: Connection, item_id: str, *, device: str, reason: str, by: str) -> MemoryItem | None:
    """Move an active, unpinned memory to cold storage (archived), saying why and for whom."""
    item = item_states.read(conn, item_id)
    if item is None:
        return None
    if item.status != Status.ACTIVE or item.pinned or in_open_conflict(conn, item_id):
        return None  # a claim in an open conflict stays in view until a person settles it
    return _set_cold(conn, item_id, device=device, cold=reason, by=by, details={"reason": reason, "by": by})


def bring_back(conn: Connection, item_id: str, *, device: str, reason: str) -> None:
    """Bring a memory back from cold storage (active again), saying why."""
    _set_cold(conn, item_id, device=device, cold=None, by=None, details={"reason": reason})


def _set_cold(
    conn: Connection, item_id: str, *, device: str, cold: str | None, by: str | None, details: dict[str, Any]
) -> MemoryItem:
    """Archive a memory with why and for whom it went cold (``cold``, ``by``), or with ``cold`` None restore it."""
    op, status = (
        ("memory.archive", Status.ARCHIVED) if cold is not None else ("memory.restore", Status.ACTIVE)
    )
    return items.set_fields(
        conn,
        item_id,
        device=device,
        op=op,
        status=status,
        metadata={"cold": cold, "cold_by": by},
        details=details,
    )
