"""Write decisions, recorded as the write path makes them, for the training export.

Each candidate the write path reconciles leaves one record: the messages of the add
(and the earlier turns given as context), the candidate, the neighbours offered with
their texts and similarity, the operation proposed (by the model, or the rule-based
reconciler), the operation applied, the guard that changed it, and the resulting memory.
These are the inputs and the action a memory manager is trained on (Memory-R1's
ADD / UPDATE / DELETE / NOOP); core/transfer/training.py joins the rewards that later reached
the resulting memory and writes them out.

A record is a row of ``traces`` with ``kind = 'write'``, written in the write path's own
transaction. Its ``returned_ids`` lists every memory and episode it refers to; a trigger
copies them into ``trace_refs`` (ids only, indexed), so ``forget`` (and expiry, which
forgets) finds and erases the record with any of them without reading every record,
exactly as it erases a search trace that returned them; a user forget erases it by ``user_id``.
Message texts are read from the (immutable) episodes at export time; the texts of the
candidate, the neighbours and the result are kept as the decision saw them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.llm import Decision
from veramem_desktop.core.storage import traces
from veramem_desktop.core.storage.ids import iso, new_id
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Status
from veramem_desktop.core.write.correction_targets import REASON as CORRECTION
from veramem_desktop.core.write.retraction_targets import OTHER_PERSON
from veramem_desktop.core.write.retraction_targets import REASON as RETRACTION

if TYPE_CHECKING:
    from veramem_desktop.core.storage.episodes import Episode
    from veramem_desktop.core.write.plan import Planned
from veramem_desktop.core.write.results import AddResult

KIND = "write"
ROUTE = "write"
#: most message ids kept per record (the cited one always among them)
MAX_MESSAGES = 32
_LISTS = ("added", "updated", "retracted", "unchanged")


class Recorder:
    """Collects one write's decisions. Made before the guards run (it keeps what was proposed),
    follows the apply loop (which outcome entries each plan produced), then writes the rows."""

    def __init__(
        self, planned: Sequence[Planned], episodes: Sequence[Episode], context: Sequence[Episode] = ()
    ) -> None:
        self.proposed: dict[int, Decision] = {id(p): p.decision for p in planned}
        self.messages = [e.id for e in episodes]
        self.context = [e.id for e in context][-MAX_MESSAGES:]
        self.produced: list[tuple[Planned, list[tuple[str, dict[str, Any]]]]] = []

    def follow(self, planned: Sequence[Planned], out: AddResult) -> Iterator[Planned]:
        """Yield each plan; when the loop comes back for the next, note the entries it added to ``out``."""
        for plan in planned:
            before = {name: len(getattr(out, name)) for name in _LISTS}
            yield plan
            self.produced.append(
                (plan, [(name, entry) for name in _LISTS for entry in getattr(out, name)[before[name] :]])
            )

    def write(self, conn: Connection, now: datetime | None = None) -> int:
        """One trace row per decision, in the caller's transaction. Returns how many."""
        stamp = iso(now or datetime.now(UTC))
        for plan, entries in self.produced:
            record = self._record(plan, entries)
            ep = plan.episode
            refs = sorted(
                {
                    *record["messages"],
                    *record["context"],
                    *(n["id"] for n in record["neighbours"]),
                    *([record["memory"]["id"]] if record["memory"] else []),
                    *([record["target_id"]] if record["target_id"] else []),
                    *record["retired"],
                }
            )
            traces.insert(
                conn,
                new_id("wd"),
                KIND,
                stamp,
                ep.user_id,
                ep.agent_id,
                record["candidate"]["text"],
                ROUTE,
                json.dumps(refs),
                json.dumps({"decision": record}, sort_keys=True),
            )
        return len(self.produced)

    def _record(self, plan: Planned, entries: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        proposed = self.proposed.get(id(plan), plan.decision)
        final = plan.decision
        outcome, main = (entries[0][0], entries[0][1]) if entries else ("unchanged", None)
        if plan.folded:
            outcome = "folded"
        memory = None
        if main is not None and outcome != "folded":
            memory = {
                "id": main["id"],
                "text": main["text"],
                "kind": main["kind"],
                "authority": main["authority"],
                "status": Status.RETRACTED if outcome == "retracted" else Status.ACTIVE,
            }
        cand, ep = plan.candidate, plan.episode
        messages = (
            self.messages
            if len(self.messages) <= MAX_MESSAGES
            else [i for i in self.messages if i == ep.id]
            + [i for i in self.messages if i != ep.id][: MAX_MESSAGES - 1]
        )
        return {
            "messages": messages,
            "context": self.context,
            "team_id": ep.team_id,
            "session_id": ep.session_id,
            "candidate": {
                "message_id": ep.id,
                "quote": plan.evidence.quote,
                "text": plan.text,
                "kind": cand.kind,
                "subject": cand.subject,
                "predicate": cand.predicate,
                "value": cand.value,
                "authority": plan.authority,
            },
            "neighbours": [
                {
                    "id": m.id,
                    "text": m.text,
                    "cosine": round(float(c), 4),
                    "authority": m.authority,
                    "kind": m.kind,
                    "subject": m.subject,
                    "predicate": m.predicate,
                    "value": m.value,
                }
                for m, c in plan.neighbours
            ],
            "proposed": {
                "op": proposed.op,
                "target_id": proposed.target_id,
                "text": proposed.text,
                "reason": proposed.reason,
            },
            "operation": final.op,
            "target_id": final.target_id,
            "guard": guard_of(proposed, final, plan.folded, outcome, main),
            "reason": (main or {}).get("reason") or final.reason,
            "outcome": outcome,
            "memory": memory,
            "retired": [e["id"] for name, e in entries[1:] if name == "retracted"],
        }


def guard_of(
    proposed: Decision, final: Decision, folded: bool, outcome: str, entry: dict[str, Any] | None
) -> str | None:
    """Which guard of the write path changed what was proposed, or None when none did."""
    by_operation = _guard_by_operation(proposed, final, folded)
    if by_operation is not None:
        return by_operation
    return _guard_by_reason(final, str((entry or {}).get("reason", "")))


def _guard_by_operation(proposed: Decision, final: Decision, folded: bool) -> str | None:
    """The guard that shows in how the operation changed from proposed to final, or None."""
    if folded:
        return "folded_into_update"  # a DELETE of a memory the same add updates
    if proposed.reason.startswith("the model named"):
        return "unoffered_target"  # it targeted a memory that was not offered: kept as new
    if final.op == "UPDATE" and proposed.op == "ADD":
        return "delete_add_pair"  # DELETE + ADD of a close memory is an UPDATE
    if final.op == "NOOP" and proposed.op != "NOOP":
        return "duplicate"  # cosine > 0.95 with an existing memory
    return None


def _guard_by_reason(final: Decision, reason: str) -> str | None:
    """The guard named by the reason the write path logged for the final decision, or None."""
    if reason.startswith("kept separately: a "):
        return "authority"  # a lower authority cannot update or delete a higher one
    if reason.startswith("kept separately: it contradicts"):
        return "batch_conflict"
    if reason.startswith("held for review"):
        return "resembles_rejected"
    if reason == "said again in the same add":
        return "same_in_batch"
    if reason.startswith("its target changed in this batch"):
        return "target_changed"
    if final.op == "NOOP" and reason.startswith("already known from a higher-authority"):
        return "authority"
    if final.reason.startswith(CORRECTION):
        return "correction"  # a correction makes a new version of the memory it corrects
    if final.reason.startswith(RETRACTION):
        return "retraction"  # a retraction retracts the same person's memory of what stopped
    if final.reason == OTHER_PERSON:
        return "other_person"  # a DELETE never retracts another person's memory
    return None
