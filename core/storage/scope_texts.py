"""The texts of one scope, read as plain rows for the rejection scan.

A rejection (core/storage/rejections.py) reads every message and memory of the rejected value's
scope (its user and team), and the messages the rejected memory quotes, to withhold those that
hold the value. The modules that own episodes and memories (core/storage/episodes.py, items.py)
import core/storage/rejections.py to withhold what they insert, so these three reads live apart
from them, with no access predicate, in the caller's transaction.
"""

from __future__ import annotations

from veramem_desktop.core.storage.store import Connection


def episode_texts(conn: Connection, user_id: str | None, team_id: str | None) -> list[tuple[str, str]]:
    """``(id, content)`` of every episode of the scope."""
    rows = conn.execute(
        "SELECT id, content FROM episodes WHERE user_id IS ? AND team_id IS ?", (user_id, team_id)
    ).fetchall()
    return [(episode_id, content) for episode_id, content in rows]


def memory_texts(conn: Connection, user_id: str | None, team_id: str | None) -> list[tuple[str, str]]:
    """``(id, text)`` of every memory of the scope, whatever its status."""
    rows = conn.execute(
        "SELECT id, text FROM memory_items WHERE user_id IS ? AND team_id IS ?", (user_id, team_id)
    ).fetchall()
    return [(memory_id, text) for memory_id, text in rows]


def quoted_episode_ids(conn: Connection, memory_id: str) -> list[str]:
    """The episode of each piece of evidence of ``memory_id`` (one per piece, in the table's order)."""
    return [
        episode_id
        for (episode_id,) in conn.execute(
            "SELECT episode_id FROM evidence WHERE memory_id = ?", (memory_id,)
        ).fetchall()
    ]
