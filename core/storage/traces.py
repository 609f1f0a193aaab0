"""Traces: what a search, an answer or a write decided, kept for feedback, audit and training.

A search or write trace holds the query (or the candidate's text), its route and the ids it
returned or referred to; an answer trace adds the ids it cited, its text and whether it
abstained; feedback later sets the reward and the ids it credited. Lists and metadata are
stored as JSON text, which the callers encode (each keeps its own key order).

Besides the writes, who a trace was made for (core/curation/reads.py), the pages the training
export reads (core/transfer/training.py), and what the outcome loop reads (feedback, the learned
ranking model, experiences and the trajectories export, core/lifecycle/) are read here. The rows
are erased by ``forget`` (core/lifecycle/forget.py) with what they refer to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.store import Connection, Store


def insert(
    conn: Connection,
    trace_id: str,
    kind: str,
    created_at: str,
    user_id: str | None,
    agent_id: str | None,
    query: str,
    route: str,
    returned_ids: str,
    metadata: str,
) -> None:
    """A search or write trace (``returned_ids`` and ``metadata`` as JSON text)."""
    conn.execute(
        "INSERT INTO traces(id, kind, created_at, user_id, agent_id, query, route, returned_ids, metadata)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (trace_id, kind, created_at, user_id, agent_id, query, route, returned_ids, metadata),
    )


def insert_answer(
    conn: Connection,
    trace_id: str,
    created_at: str,
    user_id: str | None,
    agent_id: str | None,
    question: str,
    route: str,
    returned_ids: str,
    cited_ids: str,
    answer: str,
    abstained: bool,
    metadata: str,
) -> None:
    """An answer trace: what was retrieved and cited (JSON text), the answer and whether it abstained."""
    conn.execute(
        "INSERT INTO traces(id, kind, created_at, user_id, agent_id, query, route, returned_ids, cited_ids,"
        " answer, abstained, metadata) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            trace_id,
            "answer",
            created_at,
            user_id,
            agent_id,
            question,
            route,
            returned_ids,
            cited_ids,
            answer,
            int(abstained),
            metadata,
        ),
    )


def set_feedback(
    conn: Connection, trace_id: str, reward: float, rewarded_at: str, cited_ids: str, metadata: str
) -> None:
    """Record the reward a trace was given, with the ids it cited and its metadata (JSON text)."""
    conn.execute(
        "UPDATE traces SET reward = ?, rewarded_at = ?, cited_ids = ?, metadata = ? WHERE id = ?",
        (reward, rewarded_at, cited_ids, metadata, trace_id),
    )


class MadeFor(NamedTuple):
    """Who a trace was written for."""

    user_id: str | None
    agent_id: str | None


def made_for(store: Store, trace_id: str) -> MadeFor | None:
    """Who the trace was written for, or None when there is no such trace."""
    row = store.query_one(f"SELECT {select_list(MadeFor._fields)} FROM traces WHERE id = :t", {"t": trace_id})
    return None if row is None else MadeFor._make(row)


class TraceRecord(NamedTuple):
    """A trace as :func:`page_of_kinds` and :func:`trajectory_page` give it (the id lists and the
    metadata as their JSON text)."""

    id: str
    kind: str
    created_at: str
    user_id: str | None
    agent_id: str | None
    query: str | None
    route: str | None
    returned_ids: str | None
    cited_ids: str | None
    answer: str | None
    abstained: int | None
    reward: float | None
    rewarded_at: str | None
    metadata: str | None


#: the columns of a trace, in :class:`TraceRecord`'s order
RECORD_COLUMNS = select_list(TraceRecord._fields)


def page_of_kinds(
    store: Store,
    kinds: Sequence[str],
    *,
    user_id: str | None,
    since: str | None,
    after: tuple[str, str],
    limit: int,
) -> list[TraceRecord]:
    """Up to ``limit`` traces of ``kinds`` (``user_id``'s only and made at or after ``since``, when given)
    that come after ``after`` (``(created_at, id)``) in ``(created_at, id)`` order."""
    sql = f"SELECT {RECORD_COLUMNS} FROM traces WHERE kind IN ({','.join('?' * len(kinds))})"
    params: list[Any] = list(kinds)
    if user_id is not None:
        sql += " AND user_id = ?"
        params.append(user_id)
    if since is not None:
        sql += " AND created_at >= ?"
        params.append(since)
    return _page(store, sql, params, after, limit)


def _page(store: Store, sql: str, params: list[Any], after: tuple[str, str], limit: int) -> list[TraceRecord]:
    """Up to ``limit`` of the traces ``sql`` selects that come after ``after`` (``(created_at, id)``), in
    that order."""
    rows = store.query(
        sql + " AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?", [*params, *after, limit]
    )
    return [TraceRecord._make(r) for r in rows]


def rewarded(store: Store) -> list[tuple[str, float, str, str | None]]:
    """``(id, reward, rewarded_at, metadata)`` of every trace given a reward, in the order they were given."""
    rows = store.query(
        "SELECT id, reward, rewarded_at, metadata FROM traces WHERE reward IS NOT NULL ORDER BY rewarded_at, id"
    )
    return [(trace_id, reward, rewarded_at, metadata) for trace_id, reward, rewarded_at, metadata in rows]


class FeedbackTarget(NamedTuple):
    """What a reward reads of the search or answer trace it rewards."""

    user_id: str | None
    returned_ids: str | None
    cited_ids: str | None
    reward: float | None
    metadata: str | None
    agent_id: str | None


def feedback_target(conn: Connection, trace_id: str) -> FeedbackTarget | None:
    """The :class:`FeedbackTarget` of a search or answer trace, or None when there is none (a write
    decision's trace takes no reward)."""
    row = conn.execute(
        f"SELECT {select_list(FeedbackTarget._fields)} FROM traces WHERE id = ? AND kind != 'write'",
        (trace_id,),
    ).fetchone()
    return None if row is None else FeedbackTarget._make(row)


def reward_tally(conn: Connection, user_id: str | None, *, excluding: str) -> tuple[int, float | None]:
    """(how many, mean reward) of the user's rewarded traces other than ``excluding``."""
    row = conn.execute(
        "SELECT count(*), avg(reward) FROM traces WHERE user_id IS ? AND reward IS NOT NULL AND id != ?",
        (user_id, excluding),
    ).fetchone()
    count, mean = row
    return int(count), mean


def recent_outcomes(conn: Connection, limit: int) -> list[str | None]:
    """The metadata (JSON text) of the ``limit`` most recently rewarded traces, newest first."""
    rows = conn.execute(
        "SELECT metadata FROM traces WHERE reward IS NOT NULL ORDER BY rewarded_at DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return [metadata for (metadata,) in rows]


def rewarded_at_least(
    store: Store, reward: float
) -> list[tuple[str, str | None, str, str | None, str | None]]:
    """``(id, user_id, query, returned_ids, cited_ids)`` of the traces rewarded ``reward`` or more,
    in the order they were rewarded."""
    return [
        (trace_id, user_id, query, returned_ids, cited_ids)
        for trace_id, user_id, query, returned_ids, cited_ids in store.query(
            "SELECT id, user_id, query, returned_ids, cited_ids FROM traces WHERE reward >= ? "
            "ORDER BY rewarded_at, id",
            (reward,),
        )
    ]


def query_of(store: Store, trace_id: str) -> str | None:
    """The query (or question) of a trace, or None when the trace is gone or has none."""
    row = store.query_one("SELECT query FROM traces WHERE id = ?", (trace_id,))
    return None if row is None or row[0] is None else str(row[0])


def trajectory_page(
    store: Store, user_id: str | None, after: tuple[str, str], limit: int
) -> list[TraceRecord]:
    """Up to ``limit`` search and answer traces (of ``user_id`` when given) after ``after``
    (created_at, id), in that order."""
    sql = f"SELECT {RECORD_COLUMNS} FROM traces WHERE kind != 'write'"  # write decisions: core/transfer/training.py
    params: list[Any] = []
    if user_id is not None:
        sql += " AND user_id = ?"
        params.append(user_id)
    return _page(store, sql, params, after, limit)
