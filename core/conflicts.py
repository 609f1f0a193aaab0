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

from collections.abc import Iterable

from .store import Connection

#: the statuses in which a side of a conflict still stands (cold storage included: archiving is not settling)
LIVE = ("active", "archived")

_PAIRS = (
    "SELECT m.id, p.id FROM memory_items m JOIN json_each(m.metadata, '$.conflicts_with') j "
    "JOIN memory_items p ON p.id = j.value "
    "WHERE m.metadata LIKE '%conflicts_with%' AND m.status IN ('active', 'archived') AND m.trust != 'rejected' "
    "AND p.status IN ('active', 'archived') AND p.trust != 'rejected'"
)


def open_conflicts(conn: Connection, ids: Iterable[str] | None = None) -> set[str]:
    """The memories (of ``ids``, or all) that are one side of an open conflict, whichever side
    recorded it. One pass over the memories that record a conflict."""
    wanted = None if ids is None else set(ids)
    if wanted is not None and not wanted:
        return set()
    found: set[str] = set()
    for a, b in conn.execute(_PAIRS).fetchall():
        found.add(a)
        found.add(b)
    return found if wanted is None else found & wanted


def in_open_conflict(conn: Connection, memory_id: str) -> bool:
    """One memory, by its own record (the write path records a conflict on both sides): an indexed
    lookup, cheap enough for the linker to ask before every move to cold storage."""
    return conn.execute(_PAIRS + " AND m.id = ? LIMIT 1", (memory_id,)).fetchone() is not None
