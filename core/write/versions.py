"""Applying one add's plan: new memories, new versions, retractions and evidence.

Everything an add changes is written in one transaction, each change with its ledger entry
(through core/storage/items.py): an ADD inserts a memory with its evidence and vector; an
UPDATE writes a new version that supersedes the current one (the old one keeps its
``valid_to``), and retires the other current memories that restated the replaced value; a
DELETE retracts; a NOOP adds the new evidence to the memory already stored.

Authority is never raised: a lower-authority plan that would update or retract a
higher-authority memory is stored separately, attributed, and the conflict is recorded on
both; a lower-authority repeat of a stored memory is kept as a mention, not as evidence. A
paraphrase of a rejected memory is stored withheld, for a person to decide in review. The
batch guards (core/write/guards.py) say which plans of one add conflict or repeat each other.
"""

from __future__ import annotations

from dataclasses import replace

from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.llm import Decision, multi_valued
from veramem_desktop.core.storage import (
    index,
    item_scopes,
    item_states,
    items,
    ledger,
    mention_rows,
    rejection_rows,
)
from veramem_desktop.core.storage.items import AUTHORITY_RANK, MemoryItem
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.vocabulary import Authority, Status, Withheld
from veramem_desktop.core.write import decisions
from veramem_desktop.core.write.guards import batch_conflicts, same_in_batch
from veramem_desktop.core.write.plan import Planned, norm, said_alike
from veramem_desktop.core.write.results import AddResult, Entry

CONFIDENCE: dict[str, float] = {Authority.AUTHORIZED: 0.9, Authority.ATTESTED: 0.7, Authority.UNENDORSED: 0.5}
SOURCE_BY_ROLE = {
    "user": "user",
    "system": "user",
    "assistant": "agent",
    "tool": "tool",
    "document": "document",
    "shared": "shared",
}


def apply(
    store: Store,
    planned: list[Planned],
    out: AddResult,
    recorder: decisions.Recorder | None = None,
    *,
    embedder_name: str,
    device: str,
) -> None:
    """Apply ``planned`` in one transaction, reporting each memory touched in ``out``; ``recorder``
    follows the loop and writes the decisions in the same transaction."""
    conflicts = batch_conflicts(planned)
    fresh: dict[int, MemoryItem] = {}
    with store.atomic() as conn:
        for plan in recorder.follow(planned, out) if recorder is not None else planned:
            _apply_one(conn, plan, planned, fresh, out, embedder_name=embedder_name, device=device)
        for low, high in conflicts:
            if id(low) in fresh and id(high) in fresh:
                _mark_batch_conflict(conn, fresh[id(low)], fresh[id(high)], out, device=device)
        if recorder is not None:  # the decisions, for the training export (core/write/decisions.py)
            recorder.write(conn)


def _apply_one(
    conn: Connection,
    plan: Planned,
    planned: list[Planned],
    fresh: dict[int, MemoryItem],
    out: AddResult,
    *,
    embedder_name: str,
    device: str,
) -> None:
    """Apply one plan of the add: folded away, kept apart, or its operation (ADD, UPDATE, DELETE, NOOP)."""
    if plan.folded:
        out.unchanged.append(
            {
                "text": plan.text,
                "episode_id": plan.episode.id,
                "reason": "its retraction is part of an update in the same message",
            }
        )
        return
    if plan.revises is not None:  # a memory planned earlier in this add (core/write/same_add.py)
        _aim_at_revised(plan)
    op, target_id = plan.decision.op, plan.decision.target_id
    target = plan.revises.made if plan.revises is not None else None
    target = target or next((m for m, _ in plan.neighbours if m.id == target_id), None)
    if op == "UPDATE" and target is not None and _said_alike(plan, target):
        op = "NOOP"  # "the iPhone" after "an iPhone 14": the value said again, less fully, is no new one
    if _kept_apart(conn, plan, op, target, out, embedder_name=embedder_name, device=device):
        return
    if op == "ADD" or target is None:
        same = same_in_batch(plan, planned, fresh)
        made = _apply_add(conn, plan, same, out, embedder_name=embedder_name, device=device)
        if made is not None:
            fresh[id(plan)] = made
    elif op == "UPDATE":
        _apply_update(conn, plan, target, out, embedder_name=embedder_name, device=device)
    elif op == "DELETE":
        item = items.set_fields(
            conn,
            target.id,
            device=device,
            op="memory.retract",
            status=Status.RETRACTED,
            valid_to=plan.episode.event_time,
            metadata={"retracted_by": plan.episode.id},
            details={"evidence": plan.episode.id},
        )
        out.retracted.append(_summary(item, plan.decision.reason or "retracted"))
    else:  # NOOP
        _apply_noop(conn, plan, target, out, device=device)


def _aim_at_revised(plan: Planned) -> None:
    """Point a plan that corrects or retracts a memory planned earlier in this add at the memory that
    plan wrote; when it wrote none (a guard kept it as evidence of another), the plan adds its own."""
    made = plan.revises.made if plan.revises is not None else None
    if made is None:
        plan.decision = Decision("ADD", reason="what it revises in this add was not written")
    else:
        plan.decision = replace(plan.decision, target_id=made.id)


def _said_alike(plan: Planned, target: MemoryItem) -> bool:
    """Whether a plan of lower authority gives its target's attribute the value the target holds, said more
    or less fully (:func:`said_alike`): a claim echoing the person's value is evidence of it, never a rival."""
    c = plan.candidate
    return (
        AUTHORITY_RANK[plan.authority] < AUTHORITY_RANK[target.authority]
        and bool(c.value and target.value)
        and (c.predicate or "").casefold() == (target.predicate or "").casefold()
        and said_alike(c.value or "", target.value or "")
    )


def _kept_apart(
    conn: Connection,
    plan: Planned,
    op: str,
    target: MemoryItem | None,
    out: AddResult,
    *,
    embedder_name: str,
    device: str,
) -> bool:
    """Store the plan as a memory of its own when it may not touch its target (lower authority: the
    conflict is recorded on both) or resembles a rejected memory (held for review). True when it was."""
    if (
        op in ("UPDATE", "DELETE")
        and target is not None
        and AUTHORITY_RANK[plan.authority] < AUTHORITY_RANK[target.authority]
    ):
        item = _add(conn, plan, embedder_name, device=device, conflicts_with=target.id)
        _mark_conflict(conn, target, item.id, device=device)
        out.added.append(
            _summary(
                item,
                f"kept separately: a {plan.authority} claim cannot "
                f"{op.lower()} the {target.authority} memory {target.id}; "
                "conflict recorded on both",
            )
        )
        return True
    if plan.resembles is not None:
        item = _add(conn, plan, embedder_name, device=device, resembles=plan.resembles)
        out.added.append(
            _summary(
                item,
                f"held for review: it resembles the rejected memory "
                f"{plan.resembles}, so no agent recalls it until you decide",
            )
        )
        return True
    return False


def _apply_add(
    conn: Connection,
    plan: Planned,
    same: MemoryItem | None,
    out: AddResult,
    *,
    embedder_name: str,
    device: str,
) -> MemoryItem | None:
    """A new memory, returned, unless the same add already said it as ``same`` (then evidence, or a
    mention when lower)."""
    if same is not None:  # said again in this add (the assistant's echo): one memory
        if AUTHORITY_RANK[plan.authority] >= AUTHORITY_RANK[same.authority]:
            items.add_evidence(conn, same.id, plan.evidence)
        else:
            mention_rows.add(conn, plan.episode.id, same.id)
        out.unchanged.append(_summary(same, "said again in the same add"))
        return None
    item = plan.made = _add(conn, plan, embedder_name, device=device)
    out.added.append(_summary(item, plan.decision.reason or "new"))
    return item


def _apply_update(
    conn: Connection, plan: Planned, target: MemoryItem, out: AddResult, *, embedder_name: str, device: str
) -> None:
    """A new version superseding the target (and the restatements of its value), or a new memory
    when the target changed earlier in this batch."""
    current = _current(conn, target.id)
    if current.status != Status.ACTIVE:
        item = _add(conn, plan, embedder_name, device=device)
        out.added.append(_summary(item, "its target changed in this batch; kept as new"))
        return
    new = _item(plan)
    if plan.corrects is not None:  # the old value was a mistake, not a former state
        new = replace(new, metadata={**new.metadata, "corrects": {"id": current.id, "wrong": plan.corrects}})
    item = plan.made = items.new_version(
        conn, current, new, [plan.evidence], device=device, reason=plan.decision.reason
    )
    index.index_memory(conn, embedder_name, item.id, item.text, plan.vector)
    out.updated.append({**_summary(item, plan.decision.reason or "updated"), "previous": target.id})
    _retire_restatements(conn, current, item, plan, out, device=device)


def _apply_noop(conn: Connection, plan: Planned, target: MemoryItem, out: AddResult, *, device: str) -> None:
    """Already known: the plan's evidence on the target, or a mention when its source is of lower authority."""
    if AUTHORITY_RANK[plan.authority] >= AUTHORITY_RANK[target.authority]:
        items.add_evidence(conn, target.id, plan.evidence)
        ledger.append(
            conn,
            op="memory.evidence",
            target_kind="memory",
            target_id=target.id,
            commitment_hex=ledger.commit_to(conn, target.id, plan.evidence.to_dict()),
            device=device,
            details={"evidence": plan.episode.id},
        )
        out.unchanged.append(_summary(target, (plan.decision.reason or "already known") + "; evidence added"))
    else:
        mention_rows.add(conn, plan.episode.id, target.id)  # an echo: recalled with what it repeats
        out.unchanged.append(_summary(target, "already known from a higher-authority source"))


def _mark_batch_conflict(
    conn: Connection, lower: MemoryItem, higher: MemoryItem, out: AddResult, *, device: str
) -> None:
    """Two memories new in this add that contradict each other: the conflict on both, and the lower's
    report says why it was kept separately."""
    _mark_conflict(conn, higher, lower.id, device=device)
    _mark_conflict(conn, lower, higher.id, device=device)
    for entry in out.added:
        if entry["id"] == lower.id:
            entry["reason"] = (
                f"kept separately: it contradicts the {higher.authority} memory "
                f"{higher.id} added with it; conflict recorded on both"
            )


def _retire_restatements(
    conn: Connection, old: MemoryItem, new: MemoryItem, plan: Planned, out: AddResult, *, device: str
) -> None:
    """Other current memories of no higher authority that state the value just replaced (an echo
    kept apart, a tool's copy) are history too: superseded at the same moment, pointing at ``new``."""
    c = plan.candidate
    if not (c.subject and c.predicate and old.value) or multi_valued(c.predicate):
        return
    for other in item_scopes.current_with_key(
        conn,
        user_id=old.user_id,
        team_id=old.team_id,
        subject=c.subject,
        predicate=c.predicate,
        other_than=new.id,
    ):
        if AUTHORITY_RANK[other.authority] > AUTHORITY_RANK[plan.authority] or norm(
            other.value or ""
        ) != norm(old.value):
            continue
        items.set_fields(
            conn,
            other.id,
            device=device,
            op="memory.supersede",
            status=Status.SUPERSEDED,
            valid_to=new.valid_from,
            metadata={"superseded_by": new.id},
            details={"superseded_by": new.id},
        )
        out.retracted.append(_summary(other, f"it restated {old.value!r}, which {new.id} replaced"))


def _item(plan: Planned) -> MemoryItem:
    ep, cand = plan.episode, plan.candidate
    return MemoryItem(
        id="",
        kind=cand.kind,
        text=plan.text,
        authority=plan.authority,
        user_id=ep.user_id,
        agent_id=ep.agent_id,
        team_id=ep.team_id,
        session_id=ep.session_id,
        subject=cand.subject,
        predicate=cand.predicate,
        value=cand.value,
        valid_from=ep.event_time,
        confidence=CONFIDENCE[plan.authority],
        importance=min(max(cand.importance, 0.0), 1.0),
        source=SOURCE_BY_ROLE.get(ep.role, "user"),
        metadata={"source_name": ep.source_name} if ep.source_name else {},
    )


def _add(
    conn: Connection,
    plan: Planned,
    emb_name: str,
    *,
    device: str,
    conflicts_with: str | None = None,
    resembles: str | None = None,
) -> MemoryItem:
    new = _item(plan)
    if conflicts_with:
        new = replace(
            new,
            metadata={**new.metadata, "conflicts_with": [conflicts_with]},
            confidence=max(0.1, new.confidence - 0.1),
        )
    if resembles:
        new = replace(new, metadata={**new.metadata, "resembles_rejected": resembles})
    details = {
        **({"conflicts_with": conflicts_with} if conflicts_with else {}),
        **({"resembles_rejected": resembles} if resembles else {}),
    }
    item = items.insert(conn, new, [plan.evidence], device=device, details=details or None)
    if resembles:
        rejection_rows.withhold(conn, "memory", item.id, Withheld.RESEMBLES, resembles)
    index.index_memory(conn, emb_name, item.id, item.text, plan.vector)
    return item


def _current(conn: Connection, memory_id: str) -> MemoryItem:
    """The memory as this transaction sees it (it was read when the add was planned)."""
    found = item_states.read(conn, memory_id)
    if found is None:
        raise NotFoundError(f"No memory {memory_id}.")
    return found


def _mark_conflict(conn: Connection, target: MemoryItem, other_id: str, *, device: str) -> None:
    current = _current(conn, target.id)
    conflicts = sorted({*current.metadata.get("conflicts_with", []), other_id})
    items.set_fields(
        conn,
        target.id,
        device=device,
        op="memory.conflict",
        metadata={"conflicts_with": conflicts},
        confidence=max(0.1, current.confidence - 0.1),
        details={"conflicts_with": other_id},
    )


def _summary(item: MemoryItem, reason: str) -> Entry:
    return {
        "id": item.id,
        "text": item.text,
        "kind": item.kind,
        "authority": item.authority,
        "reason": reason,
    }
