"""The write path's batch guards: rules over one add's planned decisions as a whole.

Reconciliation (a model, or the rule-based reconciler) decides each candidate alone, against
the stored memories near it. These rules see the whole batch and the nearest memory, and
may change a decision before or while it is applied (core/write/versions.py):

- a DELETE of a memory beside an ADD close to it is an UPDATE of that memory, and a DELETE
  beside an UPDATE of the same memory is folded into it (:func:`pair_delete_add`);
- a near-identical stored memory turns an ADD, or an UPDATE to the same text, into a NOOP
  that adds evidence (:func:`guard_duplicate`);
- two new values of one single-valued attribute from sources of different authority
  conflict, as if the first had been stored before (:func:`batch_conflicts`);
- a value said twice in one add is one memory (:func:`same_in_batch`).

Pure functions over the plan (core/write/plan.py): no SQL, no model.
"""

from __future__ import annotations

from veramem_desktop.core.llm import Decision, multi_valued
from veramem_desktop.core.storage.items import AUTHORITY_RANK, MemoryItem
from veramem_desktop.core.vocabulary import Kind
from veramem_desktop.core.write.plan import Planned, norm, said_alike

NOOP_COSINE = 0.95
UPDATE_COSINE = 0.75


def pair_delete_add(planned: list[Planned]) -> None:
    """Batch guards: a DELETE of m with an ADD of f (cos(m, f) > 0.75) is an UPDATE of m to f;
    a DELETE of m beside an UPDATE of m in the same batch is folded into that update."""
    updated = {p.decision.target_id for p in planned if p.decision.op == "UPDATE"}
    deletes = []
    for p in planned:
        if p.decision.op == "DELETE" and p.decision.target_id in updated:
            p.folded = True
        elif p.decision.op == "DELETE":
            deletes.append(p)
    for add in [p for p in planned if p.decision.op == "ADD"]:
        for dele in deletes:
            target = dele.decision.target_id
            cos = next((c for m, c in add.neighbours if m.id == target), None)
            if target and cos is not None and cos > UPDATE_COSINE:
                add.decision = Decision(
                    "UPDATE", target, add.text, f"DELETE+ADD with cosine {cos:.2f} > 0.75"
                )
                dele.folded = True
                deletes.remove(dele)
                break


def batch_conflicts(planned: list[Planned]) -> list[tuple[Planned, Planned]]:
    """Batch guard: two new memories of one add that give one scope's single-valued attribute
    two values from sources of different authority ("I use Vim" from the user, "your editor is
    Emacs" from the assistant, sent together) conflict just as if the first had been stored
    before: (lower, higher) pairs, for the conflict to be recorded on both. One value said less fully
    ("the iPhone" beside "an iPhone 14") is no other value."""

    def key(p: Planned) -> tuple[object, ...] | None:
        c = p.candidate
        if (
            p.decision.op != "ADD"
            or p.folded
            or c.kind == Kind.EVENT
            or not (c.subject and c.predicate and c.value)
            or multi_valued(c.predicate)
        ):
            return None
        return (
            p.episode.user_id,
            p.episode.team_id,
            c.subject.casefold().strip(),
            c.predicate.casefold().strip(),
        )

    pairs = []
    keyed = [(k, p) for p in planned if (k := key(p)) is not None]
    for i, (ka, a) in enumerate(keyed):
        for kb, b in keyed[i + 1 :]:
            ra, rb = AUTHORITY_RANK[a.authority], AUTHORITY_RANK[b.authority]
            if ka != kb or ra == rb or said_alike(a.candidate.value or "", b.candidate.value or ""):
                continue
            pairs.append((a, b) if ra < rb else (b, a))
    return pairs


def guard_duplicate(plan: Planned) -> None:
    """Cosine > 0.95 with an existing memory means NOOP plus the new evidence (unless it changes a value)."""
    if not plan.neighbours or plan.decision.op not in ("ADD", "UPDATE"):
        return
    best, cos = plan.neighbours[0]
    same_value = plan.decision.op == "ADD" or norm(best.text) == norm(plan.text)
    if cos > NOOP_COSINE and same_value:
        plan.decision = Decision("NOOP", best.id, None, f"cosine {cos:.2f} > 0.95 with an existing memory")


def same_in_batch(plan: Planned, planned: list[Planned], fresh: dict[int, MemoryItem]) -> MemoryItem | None:
    """A memory added earlier in this batch that states the same value of the same attribute."""
    c = plan.candidate
    if not (c.subject and c.predicate and c.value):
        return None
    for other in planned:
        item = fresh.get(id(other))
        o = other.candidate
        if (
            item is not None
            and other.episode.user_id == plan.episode.user_id
            and (o.subject or "").casefold() == c.subject.casefold()
            and (o.predicate or "").casefold() == c.predicate.casefold()
            and norm(o.value or "") == norm(c.value)
        ):
            return item
    return None
