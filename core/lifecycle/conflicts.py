"""Open conflicts: which memories a person still has to settle.

The write path records a conflict on both sides (``metadata.conflicts_with``) when a
lower-authority claim contradicts a memory it may not change. The conflict stays open
while both sides are live (active or in cold storage) and neither was rejected; a person
settles it by rejecting one side, or it ends when one side is superseded, retracted or
forgotten. Until then consolidation must not move either side out of view: no
subsumption, fusion, merge, archiving or budget move (each would hide the claim from the
review queue and make the other side look settled).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from veramem_desktop.core.storage import item_states
from veramem_desktop.core.storage.store import Connection


def _pairs(conn: Connection, memory_id: str | None = None) -> list[tuple[str, str]]:
    """(memory, partner) for each recorded conflict (of ``memory_id``'s own record, when given) whose
    two sides both still stand (cold storage included: archiving is not settling)."""
    recorded: list[tuple[str, str]] = []
    for mid, partners in item_states.conflict_records(conn, memory_id):
        try:
            found = json.loads(partners) if partners else []
        except ValueError:
            continue
        recorded += [(mid, p) for p in found if isinstance(p, str)]
    if not recorded:
        return []
    wanted = sorted({p for _, p in recorded})
    live: set[str] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        live |= item_states.standing_ids(conn, chunk)
    return [(m, p) for m, p in recorded if p in live]


def open_conflicts(conn: Connection, ids: Iterable[str] | None = None) -> set[str]:
    """The memories (of ``ids``, or all) that are one side of an open conflict, whichever side
    recorded it. One pass over the memories that record a conflict."""
    wanted = None if ids is None else set(ids)
    if wanted is not None and not wanted:
        return set()
    found: set[str] = set()
    for a, b in _pairs(conn):
        found.add(a)
        found.add(b)
    return found if wanted is None else found & wanted


def in_open_conflict(conn: Connection, memory_id: str) -> bool:
    """One memory, by its own record (the write path records a conflict on both sides): an indexed
    lookup, cheap enough for the linker to ask before every move to cold storage."""
    return bool(_pairs(conn, memory_id))
