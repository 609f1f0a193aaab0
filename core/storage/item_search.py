"""The memory rows search reads, the caller's visibility (the access predicate, core/storage/access.py)
in each statement: the ids a caller may see, their words, and the rows ranking and the truth
stage weigh.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.id_sets import chunks, marks
from veramem_desktop.core.storage.store import Store

#: the reason the memory ``m`` is withheld, or None when it is shown
_WITHHELD = "(SELECT reason FROM withheld w WHERE w.owner_kind = 'memory' AND w.owner_id = m.id)"


class TruthRow(NamedTuple):
    """What the truth stage (core/recall/truth.py) reads of a memory; ``metadata`` is its JSON text and
    ``withheld`` the reason it is withheld (None when it is shown)."""

    id: str
    status: str
    trust: str
    authority: str
    root_id: str
    user_id: str | None
    team_id: str | None
    subject: str | None
    predicate: str | None
    value: str | None
    withheld: str | None
    metadata: str | None


class HitRow(NamedTuple):
    """What ranking (core/recall/rank.py) reads of a memory, then the rest of its :class:`TruthRow`: one
    read serves the ranking and the truth stage."""

    id: str
    kind: str
    text: str
    authority: str
    trust: str
    status: str
    valid_from: str
    user_id: str | None
    session_id: str | None
    source: str | None
    successes: float
    failures: float
    retrieval_strength: float
    root_id: str
    importance: float
    confidence: float
    uses: int
    last_used_at: str | None
    subject: str | None
    predicate: str | None
    team_id: str | None
    metadata: str | None
    withheld: str | None
    value: str | None

    def truth(self) -> TruthRow:
        """The memory's truth row, as :func:`truth_rows` would read it."""
        return TruthRow(**{name: getattr(self, name) for name in TruthRow._fields})


_HIT_COLUMNS = select_list(HitRow._fields, "m", withheld=_WITHHELD)
_TRUTH_COLUMNS = select_list(TruthRow._fields, "m", withheld=_WITHHELD)


def visible_memory_ids(
    store: Store, caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str
) -> list[str]:
    """The ids of every memory of the ``kinds`` the caller may see."""
    sql = (
        f"SELECT m.id FROM memory_items m WHERE {access.memory_predicate('m', include_archived=include_archived)}"
        f" AND m.kind IN ({','.join(':k' + str(i) for i in range(len(kinds)))})"
    )
    params = {**access.params(caller, now), **{f"k{i}": k for i, k in enumerate(kinds)}}
    return [r[0] for r in store.query(sql, params)]


def visible_among(
    store: Store, ids: list[str], caller: Caller, include_archived: bool, now: str
) -> list[str]:
    """Those of the given memory ids that the caller may see."""
    named = ",".join(f":i{n}" for n in range(len(ids)))
    return [
        memory_id
        for (memory_id,) in store.query(
            f"SELECT m.id FROM memory_items m WHERE m.id IN ({named}) AND "
            f"{access.memory_predicate('m', include_archived=include_archived)}",
            {**access.params(caller, now), **{f"i{n}": i for n, i in enumerate(ids)}},
        )
    ]


def memory_texts(
    store: Store, ids: list[str], caller: Caller, include_archived: bool, now: str
) -> dict[str, str]:
    """The words of the given memories (not empty) that the caller may see."""
    params: dict[str, Any] = {**access.params(caller, now), **{f"c{i}": d for i, d in enumerate(ids)}}
    named = ",".join(f":c{i}" for i in range(len(ids)))
    sql = (
        f"SELECT m.id, m.text FROM memory_items m WHERE m.id IN ({named}) AND "
        f"{access.memory_predicate('m', include_archived=include_archived)}"
    )
    return {memory_id: str(text) for memory_id, text in store.query(sql, params)}


def hit_rows(store: Store, ids: list[str]) -> list[HitRow]:
    """The ranking rows of the given memories (:class:`HitRow`)."""
    found: list[HitRow] = []
    for chunk in chunks(ids, 500):
        rows = store.query(f"SELECT {_HIT_COLUMNS} FROM memory_items m WHERE m.id IN ({marks(chunk)})", chunk)
        found.extend(HitRow._make(r) for r in rows)
    return found


def truth_rows(store: Store, ids: set[str]) -> list[TruthRow]:
    """The truth stage's rows of the given memories (:class:`TruthRow`), in id order."""
    found: list[TruthRow] = []
    for chunk in chunks(sorted(ids), 500):
        rows = store.query(
            f"SELECT {_TRUTH_COLUMNS} FROM memory_items m WHERE m.id IN ({marks(chunk)})", chunk
        )
        found.extend(TruthRow._make(r) for r in rows)
    return found


def texts_of(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The text of each id found: a memory's text or an episode's content (missing ids are left out). No
    access predicate: the benchmarks score their own stores with it."""
    found: dict[str, str] = {}
    for i in ids:
        row = store.query_one(
            "SELECT text FROM memory_items WHERE id = ? UNION ALL SELECT content FROM episodes WHERE id = ?",
            (i, i),
        )
        if row is not None:
            found[i] = str(row[0])
    return found
