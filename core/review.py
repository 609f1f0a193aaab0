"""Trust and review: candidates and conflicts, approved or rejected by a person only.

Approval is never offered to agents (no MCP tool, no REST endpoint). It raises trust,
never authority, and refuses a value that was rejected before. Rejection records the
value in the rejected-value ledger so it cannot return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import items, rejections
from .errors import NotFoundError, RefusedError
from .items import MemoryItem
from .store import Store


@dataclass
class ReviewItem:
    item: MemoryItem
    reason: str
    conflicts_with: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.item.to_dict(), "reason": self.reason, "conflicts_with": self.conflicts_with}


def queue(store: Store, *, user_id: str | None = None, limit: int = 200) -> list[ReviewItem]:
    """Active candidates that need a person: conflicts first, then lower-authority claims."""
    sql = (f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust = 'candidate' "
           "AND (authority != 'authorized' OR metadata LIKE '%conflicts_with%')")
    params: list[Any] = []
    if user_id is not None:
        sql += " AND user_id = ?"
        params.append(user_id)
    sql += " ORDER BY created_at DESC LIMIT ?"
    out = []
    for row in store.query(sql, [*params, limit]):
        item = items.row_to_item(row)
        conflicts = list(item.metadata.get("conflicts_with", []))
        reason = (f"conflicts with {', '.join(conflicts)}" if conflicts
                  else f"{item.authority} claim (from {item.source}) not yet reviewed")
        out.append(ReviewItem(item, reason, conflicts))
    out.sort(key=lambda r: (not r.conflicts_with,))
    return out


def approve(store: Store, memory_id: str, *, device: str) -> MemoryItem:
    with store.atomic() as conn:
        row = conn.execute(f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No memory {memory_id}.")
        item = items.row_to_item(row)
        if item.trust == "rejected":
            raise RefusedError(f"{memory_id} was rejected; a rejected value cannot be approved.")
        if rejections.is_rejected(conn, user_id=item.user_id, team_id=item.team_id, subject=item.subject,
                                  predicate=item.predicate, value=item.value, text=item.text):
            raise RefusedError(f"{memory_id} states a value that was rejected before for the same subject; "
                               "it cannot be approved.")
        if item.status != "active":
            raise RefusedError(f"{memory_id} is {item.status}; only an active memory can be approved.")
        return items.set_fields(conn, memory_id, device=device, op="memory.approve", trust="verified")


def reject(store: Store, memory_id: str, *, device: str, reason: str = "") -> MemoryItem:
    with store.atomic() as conn:
        row = conn.execute(f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"No memory {memory_id}.")
        item = items.row_to_item(row)
        rejections.record(conn, item)
        return items.set_fields(conn, memory_id, device=device, op="memory.reject", trust="rejected",
                                confidence=0.0, metadata={"rejected_reason": reason} if reason else {})
