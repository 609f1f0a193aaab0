"""A stored memory's state as search labels it, for surfaces that list memories rather than search them.

A list shows a memory with the same badge search gives it (core/recall/truth.py): current, in
conflict (a recorded conflict whose other side is active and not rejected), superseded, retracted,
archived, rejected (by trust or by the rejected-value ledger), or held (it resembles a rejected value).
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.recall.truth import partner_rows, read_rows, row_state
from veramem_desktop.core.storage.store import Store


def states(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The state of each of the memories ``ids`` found, by id, read with their conflicts' other sides."""
    rows = read_rows(store, set(ids), {})
    rows |= partner_rows(store, rows, {})
    return {i: row_state(rows[i], rows) for i in ids if i in rows}
