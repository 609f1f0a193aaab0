"""Recall's reads of memories and their evidence (written by core/storage/items.py and item_rows.py).

Each read that returns rows a caller could be shown carries the access predicate
(core/storage/access.py) in its own SQL, never as a post-filter (invariant 6):

- the ids a caller may see (of some kinds, or among given ids), the words of given memories and
  their typed links (the channels and the truth stage's fetch, core/recall/), and the turns given
  memories cite (the fact votes, core/recall/fact_votes.py);
- by id, for ids already ranked for a caller: the ranking rows of given memories
  (core/recall/rank.py); their states and subjects, the active version of their chains, what
  they were merged into, the active holders of one attribute, and the memories each episode is
  evidence of or restates (the truth stage, core/recall/truth.py); the episodes given memories
  cite (the answer ladder, core/recall/answer.py).
"""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.id_sets import chunks
from veramem_desktop.core.storage.store import Store


# ------------------------------------------------------------ for a caller (the access predicate in the SQL)
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
    marks = ",".join(f":i{n}" for n in range(len(ids)))
    return [
        r[0]
        for r in store.query(
            f"SELECT m.id FROM memory_items m WHERE m.id IN ({marks}) AND "
            f"{access.memory_predicate('m', include_archived=include_archived)}",
            {**access.params(caller, now), **{f"i{n}": i for n, i in enumerate(ids)}},
        )
    ]


def cited_visible_turns(store: Store, memory_ids: list[str], caller: Caller, now: str) -> list[Any]:
    """The rows (memory, episode) for each episode the given memories cite as evidence that the caller
    may see, in the order the evidence was recorded (the fact votes, core/recall/fact_votes.py)."""
    if not memory_ids:
        return []
    marks = ",".join(f":i{n}" for n in range(len(memory_ids)))
    return store.query(
        f"SELECT v.memory_id, v.episode_id FROM evidence v JOIN episodes e ON e.id = v.episode_id "
        f"WHERE v.memory_id IN ({marks}) AND {access.episode_predicate('e')} ORDER BY v.id",
        {**access.params(caller, now), **{f"i{n}": i for n, i in enumerate(memory_ids)}},
    )


def memory_texts(
    store: Store, ids: list[str], caller: Caller, include_archived: bool, now: str
) -> dict[str, str]:
    """The words of the given memories (not empty) that the caller may see."""
    params: dict[str, Any] = {**access.params(caller, now), **{f"c{i}": d for i, d in enumerate(ids)}}
    marks = ",".join(f":c{i}" for i in range(len(ids)))
    sql = (
        f"SELECT m.id, m.text FROM memory_items m WHERE m.id IN ({marks}) AND "
        f"{access.memory_predicate('m', include_archived=include_archived)}"
    )
    return {r[0]: str(r[1]) for r in store.query(sql, params)}


def linked_pairs(
    store: Store,
    seeds: list[str],
    link_types: tuple[str, ...],
    caller: Caller,
    kinds: tuple[str, ...],
    include_archived: bool,
    now: str,
) -> list[Any]:
    """The rows (seed, linked memory), one for each link of the ``link_types`` between a seed and a memory
    of the ``kinds`` the caller may see."""
    params: dict[str, Any] = {
        **access.params(caller, now),
        **{f"s{i}": d for i, d in enumerate(seeds)},
        **{f"k{i}": k for i, k in enumerate(kinds)},
        **{f"t{i}": t for i, t in enumerate(link_types)},
    }
    in_seeds = ",".join(f":s{i}" for i in range(len(seeds)))
    in_kinds = ",".join(f":k{i}" for i in range(len(kinds)))
    in_types = ",".join(f":t{i}" for i in range(len(link_types)))
    pred = access.memory_predicate("m", include_archived=include_archived)
    return store.query(
        f"SELECT l.src, l.dst FROM links l JOIN memory_items m ON m.id = l.dst WHERE l.src IN ({in_seeds}) "
        f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred} "
        f"UNION SELECT l.dst, l.src FROM links l JOIN memory_items m ON m.id = l.src WHERE l.dst IN ({in_seeds}) "
        f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred}",
        params,
    )


# ------------------------------------------------------------ by id (ids already ranked for a caller)
def _in(values: list[str]) -> str:
    return ",".join("?" * len(values))


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
                f"FROM memory_items m WHERE m.id IN ({_in(chunk)})",
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
                f"FROM memory_items m WHERE m.id IN ({_in(chunk)})",
                chunk,
            )
        )
    return found


def active_by_root(store: Store, roots: list[str]) -> list[Any]:
    """The rows (root, id) of the active, not rejected memories of the given version chains."""
    found: list[Any] = []
    for chunk in chunks(roots, 500):
        found.extend(
            store.query(
                f"SELECT root_id, id FROM memory_items WHERE status = 'active' "
                f"AND trust != 'rejected' AND root_id IN ({_in(chunk)})",
                chunk,
            )
        )
    return found


def newest_derived(store: Store, source_id: str) -> Any:
    """The row (id, status) of the newest memory derived from ``source_id`` (a merge or fusion), or None."""
    return store.query_one(
        "SELECT d.derived_id, m.status FROM derivations d JOIN memory_items m "
        "ON m.id = d.derived_id WHERE d.source_id = ? ORDER BY m.created_at DESC LIMIT 1",
        (source_id,),
    )


def key_holders(store: Store, keys: list[tuple[str | None, ...]]) -> list[str]:
    """The active, not rejected memories (at most 20 per key) stating each key's ``(user, subject, predicate,
    team)`` as stored (an indexed lookup per key, a statement per 100 keys)."""
    one = (
        "SELECT id FROM (SELECT id FROM memory_items INDEXED BY memory_key WHERE user_id IS ? AND subject = ? "
        "AND predicate = ? AND team_id IS ? AND status = 'active' AND trust != 'rejected' LIMIT 20)"
    )
    found: list[str] = []
    for lo in range(0, len(keys), 100):
        part = keys[lo : lo + 100]
        found += [
            r[0] for r in store.query(" UNION ALL ".join([one] * len(part)), [v for k in part for v in k])
        ]
    return found


def memories_of_episodes(store: Store, episode_ids: list[str]) -> dict[str, list[str]]:
    """The memories each episode is evidence of or restates."""
    out: dict[str, list[str]] = {}
    for chunk in chunks(episode_ids, 500):
        for eid, mid in store.query(
            f"SELECT episode_id, memory_id FROM evidence WHERE episode_id IN ({_in(chunk)}) "
            f"UNION SELECT episode_id, memory_id FROM mentions WHERE episode_id IN ({_in(chunk)})",
            chunk + chunk,
        ):
            out.setdefault(eid, []).append(mid)
    return out


def cited_episode_ids(store: Store, memory_ids: list[str]) -> list[str]:
    """The distinct episodes the given memories (not empty) cite as evidence."""
    marks = ",".join("?" * len(memory_ids))
    return [
        r[0]
        for r in store.query(
            f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({marks})", memory_ids
        )
    ]
