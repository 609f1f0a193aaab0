"""The memory rows search reads, the caller's visibility (the access predicate, core/trust/access.py)
in each statement: the ids a caller may see, their words, and the rows ranking and the truth
stage weigh.
"""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage.id_sets import chunks, marks
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.trust import access
from veramem_desktop.core.trust.access import Caller


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
        r[0]
        for r in store.query(
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
    return {r[0]: str(r[1]) for r in store.query(sql, params)}


def hit_rows(store: Store, ids: list[str]) -> list[Any]:
    """The ranking rows of the given memories: id, kind, text, authority, trust, status, valid from, user,
    session, source, successes, failures, retrieval strength, root, importance, confidence, uses, last used;
    then the rest of what :func:`truth_rows` reads: subject, predicate, team, metadata (JSON), withheld
    reason (or None), value. One read serves the ranking and the truth stage."""
    found: list[Any] = []
    for chunk in chunks(ids, 500):
        found.extend(
            store.query(
                "SELECT m.id, m.kind, m.text, m.authority, m.trust, m.status, m.valid_from, m.user_id, m.session_id, "
                "m.source, m.successes, m.failures, m.retrieval_strength, m.root_id, m.importance, m.confidence, "
                "m.uses, m.last_used_at, m.subject, m.predicate, m.team_id, m.metadata, "
                "(SELECT reason FROM withheld w WHERE w.owner_kind = 'memory' AND w.owner_id = m.id), m.value "
                f"FROM memory_items m WHERE m.id IN ({marks(chunk)})",
                chunk,
            )
        )
    return found


def truth_rows(store: Store, ids: set[str]) -> list[Any]:
    """The truth stage's rows of the given memories (in id order): id, status, trust, subject, predicate,
    user, team, root, authority, metadata (JSON), withheld reason (or None), value."""
    found: list[Any] = []
    for chunk in chunks(sorted(ids), 500):
        found.extend(
            store.query(
                "SELECT m.id, m.status, m.trust, m.subject, m.predicate, m.user_id, m.team_id, m.root_id, m.authority, "
                "m.metadata, (SELECT reason FROM withheld w WHERE w.owner_kind = 'memory' AND w.owner_id = m.id), m.value "
                f"FROM memory_items m WHERE m.id IN ({marks(chunk)})",
                chunk,
            )
        )
    return found
