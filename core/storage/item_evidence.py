"""What memories cite: their evidence rows and spans, the episodes they quote, and the memories
each episode is evidence of (the evidence rows themselves are written by items.py and item_rows.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.id_sets import chunks, marks
from veramem_desktop.core.storage.store import Connection, Store


class EvidenceRow(NamedTuple):
    """One piece of evidence: the memory it supports, the episode and span it quotes, its score and role."""

    memory_id: str
    episode_id: str
    span_start: int
    span_end: int
    quote: str
    role: str
    score: float


def evidence_rows(store: Store, memory_ids: Sequence[str]) -> list[EvidenceRow]:
    """The evidence of ``memory_ids`` (one ``?`` per id), in the order it was recorded."""
    rows = store.query(
        f"SELECT {select_list(EvidenceRow._fields)} FROM evidence WHERE memory_id IN ({marks(memory_ids)}) ORDER BY id",
        list(memory_ids),
    )
    return [EvidenceRow._make(r) for r in rows]


def evidence_spans(conn: Connection, memory_id: str) -> set[tuple[str, int, int]]:
    """``(episode, span start, span end)`` of each of the memory's quotes."""
    return {
        (episode_id, int(span_start), int(span_end))
        for episode_id, span_start, span_end in conn.execute(
            "SELECT episode_id, span_start, span_end FROM evidence WHERE memory_id = ?", (memory_id,)
        ).fetchall()
    }


def first_episode(store: Store, memory_id: str) -> str | None:
    """The episode of the memory's first evidence, or None when it has none."""
    row = store.query_one(
        "SELECT episode_id FROM evidence WHERE memory_id = ? ORDER BY id LIMIT 1", (memory_id,)
    )
    return None if row is None else row[0]


def quoted_episodes(store: Store, memory_ids: Sequence[str]) -> set[str]:
    """The episodes the evidence of ``memory_ids`` (one ``?`` per id) stands in."""
    return {
        episode_id
        for (episode_id,) in store.query(
            f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({marks(memory_ids)})",
            list(memory_ids),
        )
    }


def cited_episode_ids(store: Store, memory_ids: list[str]) -> list[str]:
    """The distinct episodes the given memories (not empty) cite as evidence."""
    return [
        episode_id
        for (episode_id,) in store.query(
            f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({marks(memory_ids)})", memory_ids
        )
    ]


def cited_visible_turns(store: Store, memory_ids: list[str], caller: Caller, now: str) -> list[Any]:
    """The rows (memory, episode) for each episode the given memories cite as evidence that the caller
    may see, in the order the evidence was recorded (the fact votes, core/recall/fact_votes.py)."""
    if not memory_ids:
        return []
    named = ",".join(f":i{n}" for n in range(len(memory_ids)))
    return store.query(
        f"SELECT v.memory_id, v.episode_id FROM evidence v JOIN episodes e ON e.id = v.episode_id "
        f"WHERE v.memory_id IN ({named}) AND {access.episode_predicate('e')} ORDER BY v.id",
        {**access.params(caller, now), **{f"i{n}": i for n, i in enumerate(memory_ids)}},
    )


def memories_of_episodes(store: Store, episode_ids: list[str]) -> dict[str, list[str]]:
    """The memories each episode is evidence of or restates."""
    out: dict[str, list[str]] = {}
    for chunk in chunks(episode_ids, 500):
        for eid, mid in store.query(
            f"SELECT episode_id, memory_id FROM evidence WHERE episode_id IN ({marks(chunk)}) "
            f"UNION SELECT episode_id, memory_id FROM mentions WHERE episode_id IN ({marks(chunk)})",
            chunk + chunk,
        ):
            out.setdefault(eid, []).append(mid)
    return out


def evidence_map(store: Store) -> dict[str, list[str]]:
    """Every memory's evidence as the episode ids it stands in, in the order the evidence was recorded (no
    access predicate: the benchmarks score their own stores with it)."""
    found: dict[str, list[str]] = {}
    for memory_id, episode_id in store.query("SELECT memory_id, episode_id FROM evidence ORDER BY id"):
        found.setdefault(memory_id, []).append(episode_id)
    return found
