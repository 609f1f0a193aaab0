"""A stored memory's state as search labels it, for surfaces that list memories rather than search them.

A list shows a memory with the same badge search gives it (core/recall/truth.py): current, in
conflict (a recorded conflict whose other side is active and not rejected), superseded, retracted,
archived, rejected (by trust or by the rejected-value ledger), held (it resembles a rejected value), or
probably superseded: recall's safety net (core/recall/safety_net.py), by the same rule search applies to
its hits, compared with the newest ``NET_WINDOW`` active memories of the same person.
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.recall import safety_net
from veramem_desktop.core.recall.hits import Hit
from veramem_desktop.core.recall.truth import partner_rows, read_rows, row_state
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.vocabulary import State

#: how many of a person's newest active memories a listed memory's statement is compared with
NET_WINDOW = 500


def states(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The state of each of the memories ``ids`` found, by id, read with their conflicts' other sides."""
    rows = read_rows(store, set(ids), {})
    rows |= partner_rows(store, rows, {})
    found = {i: row_state(rows[i], rows) for i in ids if i in rows}
    live = [i for i, state in found.items() if state in (State.CURRENT, State.IN_CONFLICT)]
    for i in _replaced(store, live):
        found[i] = safety_net.STATE
    return found


def _replaced(store: Store, live: list[str]) -> set[str]:
    """Those of the ``live`` memories a newer statement of the same attribute of the same person replaces,
    by the safety net's rule, among the newest active memories of their people."""
    if not live:
        return set()
    listed = list(items.get_many(store, live).values())
    users = {m.user_id for m in listed}
    window = {m.id: m for u in users for m in items.list_items(store, user_id=u, limit=NET_WINDOW)}
    window.update({m.id: m for m in listed})
    rows = read_rows(store, set(window), {})
    hits = [_as_hit(m, row_state(rows[m.id], rows)) for m in window.values() if m.id in rows]
    safety_net.apply(hits, rows, {}, lambda _a, _b: None)
    return {h.id for h in hits if h.id in set(live) and h.state == safety_net.STATE}


def _as_hit(m: MemoryItem, state: str) -> Hit:
    """A stored memory as the truth stage sees a search hit of it (no relevance)."""
    hit = Hit(m.id, m.kind, m.text, 0.0, m.authority, m.trust, m.status, m.valid_from, m.user_id)
    hit.source, hit.state = m.source, state
    return hit
