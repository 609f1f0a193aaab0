"""The memories planned earlier in the same add, as a later correction or retraction in it sees them.

"I moved to Lisbon. Sorry, I meant Porto." in one message (or in two messages of one add, or of one
import batch) must end as it does when the two are added one by one: one current memory (Porto)
whose earlier version is Lisbon, with ``corrects: "Lisbon"``. When the correction is planned the
Lisbon memory is not stored yet, so each earlier plan of the add that makes a memory (ADD or
UPDATE) in the same scope is offered beside the stored ones, as a memory whose id names it as
planned (:data:`PLANNED`; such ids sort after every stored id, so it is the newest). A plan whose
decision targets one revises that plan (``Planned.revises``), and core/write/versions.py applies
it to the memory that plan wrote, once written. Who a memory is about is read from its words as
for a stored one, so another person's value is never corrected.
Pure functions over the plan (core/write/plan.py): no SQL, no model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veramem_desktop.core.protocols import Vectors
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.write.plan import Planned

#: the id prefix of a memory planned earlier in the same add ("planned:0003" is the add's fourth plan)
PLANNED = "planned:"

Pool = Callable[[], Sequence[tuple[MemoryItem, float]]]


def offered(planned: Sequence[Planned], ep: Episode, vec: Vectors) -> list[tuple[MemoryItem, float]]:
    """The memories the add's plans so far will write in ``ep``'s scope, oldest first, each with its
    cosine to ``vec``."""
    out = []
    for i, p in enumerate(planned):
        if p.decision.op not in ("ADD", "UPDATE") or p.resembles is not None:
            continue
        if (p.episode.user_id, p.episode.team_id) != (ep.user_id, ep.team_id):
            continue
        c = p.candidate
        item = MemoryItem(
            id=f"{PLANNED}{i:04d}",
            kind=c.kind,
            text=p.text,
            authority=p.authority,
            user_id=p.episode.user_id,
            team_id=p.episode.team_id,
            subject=c.subject,
            predicate=c.predicate,
            value=c.value,
            valid_from=p.episode.event_time,
        )
        out.append((item, float(p.vector @ vec)))
    return out


def pool(
    stored: Pool, planned: Sequence[Planned], ep: Episode, vec: Vectors
) -> list[tuple[MemoryItem, float]]:
    """The stored memories near a candidate, then those planned earlier in the add."""
    return [*stored(), *offered(planned, ep, vec)]


def recent(
    stored: Callable[[], Sequence[MemoryItem]], planned: Sequence[Planned], ep: Episode, vec: Vectors
) -> list[MemoryItem]:
    """The newest memories of the scope, newest first: those planned earlier in the add, then the stored."""
    return [*(m for m, _ in reversed(offered(planned, ep, vec))), *stored()]


def revised(target_id: str | None, planned: Sequence[Planned]) -> Planned | None:
    """The plan of this add a decision's target names, or None when it names a stored memory."""
    if not target_id or not target_id.startswith(PLANNED):
        return None
    return planned[int(target_id[len(PLANNED) :])]


def revising(target_id: str, planned: Sequence[Planned]) -> bool:
    """Whether a plan of this add already retracts or replaces the memory ``target_id``."""
    return any(p.decision.op in ("DELETE", "UPDATE") and p.decision.target_id == target_id for p in planned)
