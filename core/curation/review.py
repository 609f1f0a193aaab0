"""Trust and review: candidates and conflicts, approved or rejected by a person only.

Approval is never offered to agents (no MCP tool, no REST endpoint). It raises trust,
never authority, and refuses a value that was rejected before. Rejection records the
value in the rejected-value ledger so it cannot return.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.errors import NotFoundError, RefusedError
from veramem_desktop.core.recall.states import states
from veramem_desktop.core.storage import item_states, items, rejection_rows, rejections
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.vocabulary import Authority, State, Status, Trust, Withheld


@dataclass
class ReviewItem:
    item: MemoryItem
    reason: str
    conflicts_with: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"item": self.item.to_dict(), "reason": self.reason, "conflicts_with": self.conflicts_with}


def queue(store: Store, *, user_id: str | None = None, limit: int = 200) -> list[ReviewItem]:
    """Active candidates that need a person: conflicts first, then lower-authority claims. A recorded
    conflict counts while it is open (the state search gives the memory, core/recall/states.py): once its
    other side is rejected, replaced or forgotten, the user's own memory no longer waits for anyone."""
    found = item_states.review_queue(store, user_id=user_id, limit=limit)
    state = states(store, [item.id for item in found])
    with store.read() as conn:  # held by the write path's near-miss check: it waits for a person too
        near = {i.id for i in found if rejection_rows.is_withheld(conn, "memory", i.id) == Withheld.RESEMBLES}
    out = []
    for item in found:
        open_conflict = state.get(item.id) == State.IN_CONFLICT
        conflicts = list(item.metadata.get("conflicts_with", [])) if open_conflict else []
        resembles = item.metadata.get("resembles_rejected") or ("a near miss" if item.id in near else None)
        if not (conflicts or resembles) and item.authority == Authority.AUTHORIZED:
            continue  # it waited only for a conflict that is settled now
        reason = (
            f"resembles a rejected value ({resembles}); held out of recall until you decide"
            if resembles
            else f"conflicts with {', '.join(conflicts)}"
            if conflicts
            else f"{item.authority} claim (from {item.source}) not yet reviewed"
        )
        out.append(ReviewItem(item, reason, conflicts))
    out.sort(key=lambda r: (not r.conflicts_with,))
    return out


def approve(store: Store, memory_id: str, *, device: str) -> MemoryItem:
    with store.atomic() as conn:
        item = item_states.read(conn, memory_id)
        if item is None:
            raise NotFoundError(f"No memory {memory_id}.")
        if item.trust == Trust.REJECTED:
            raise RefusedError(f"{memory_id} was rejected; a rejected value cannot be approved.")
        if rejections.is_rejected(conn, item, item, item.text):
            raise RefusedError(
                f"{memory_id} states a value that was rejected before for the same subject; "
                "it cannot be approved."
            )
        if rejection_rows.is_withheld(conn, "memory", memory_id) == Withheld.REJECTED or any(
            rejections.holding(conn, user_id=item.user_id, team_id=item.team_id, texts=[item.text])
        ):
            raise RefusedError(f"{memory_id} holds a value that was rejected before; it cannot be approved.")
        if item.status != Status.ACTIVE:
            raise RefusedError(f"{memory_id} is {item.status}; only an active memory can be approved.")
        rejection_rows.release(conn, "memory", memory_id)  # a person decided it is not the rejected value
        return items.set_fields(conn, memory_id, device=device, op="memory.approve", trust=Trust.VERIFIED)


@dataclass
class Rejection:
    """What a rejection changed: the memory, the equivalent memories retracted with it, the rows now
    withheld from recall, and the earlier version reinstated when the rejected one had replaced it."""

    item: MemoryItem
    retracted: list[str]
    withheld: list[str]
    reinstated: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.item.to_dict(),
            "retracted_with_it": self.retracted,
            "withheld": self.withheld,
            "reinstated": self.reinstated,
        }


def reject(store: Store, memory_id: str, *, device: str, reason: str = "") -> Rejection:
    with store.atomic() as conn:
        item = item_states.read(conn, memory_id)
        if item is None:
            raise NotFoundError(f"No memory {memory_id}.")
        withheld = rejections.record(conn, item)
        rejected = items.set_fields(
            conn,
            memory_id,
            device=device,
            op="memory.reject",
            trust=Trust.REJECTED,
            confidence=0.0,
            metadata={"rejected_reason": reason} if reason else {},
        )
        # Memories that say the same (a tool's or an assistant's copy, stored before or after) go with it.
        retracted = []
        for other in withheld:
            if other == memory_id or not other.startswith("mem_"):
                continue
            current = item_states.status_and_trust(conn, other)
            if current is not None and current[0] == Status.ACTIVE:
                _retract(
                    conn,
                    other,
                    device=device,
                    metadata={"retracted_by_rejection": memory_id},
                    details={"rejection": memory_id},
                )
                retracted.append(other)
        reinstated = _reinstate(conn, item, device=device)
        return Rejection(
            rejected, retracted, [w for w in withheld if w not in retracted and w != memory_id], reinstated
        )


def _retract(conn: Any, item_id: str, *, device: str, **why: Any) -> None:
    """Retract a memory as of now; ``why`` holds the ledger ``details`` and any ``metadata`` that say why."""
    items.set_fields(
        conn, item_id, device=device, op="memory.retract", status=Status.RETRACTED, valid_to=now_iso(), **why
    )


def _reinstate(conn: Any, item: MemoryItem, *, device: str) -> str | None:
    """A rejected version that had replaced an earlier one: the earlier value is current again (a person
    said the change was wrong), unless it was rejected or withheld itself."""
    if item.status != Status.ACTIVE or not item.supersedes:
        return None
    before = item_states.read(conn, item.supersedes)
    if before is None:
        return None
    if (
        before.status != Status.SUPERSEDED
        or before.trust == Trust.REJECTED
        or rejection_rows.is_withheld(conn, "memory", before.id) is not None
    ):
        return None
    _retract(conn, item.id, device=device, details={"rejected": True})
    items.set_fields(
        conn,
        before.id,
        device=device,
        op="memory.reinstate",
        status=Status.ACTIVE,
        valid_to=None,
        details={"reason": f"{item.id}, which replaced it, was rejected"},
    )
    return before.id
