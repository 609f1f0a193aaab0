"""Traces: what a search, an answer or a write decided, kept for feedback, audit and training.

A search or write trace holds the query (or the candidate's text), its route and the ids it
returned or referred to; an answer trace adds the ids it cited, its text and whether it
abstained; feedback later sets the reward and the ids it credited. Lists and metadata are
stored as JSON text, which the callers encode (each keeps its own key order).

The rows are erased by ``forget`` (core/lifecycle/forget.py) with what they refer to.
"""

from __future__ import annotations

from veramem_desktop.core.storage.store import Connection


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
