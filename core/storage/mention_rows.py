"""Mentions: a message that repeats a stored memory with lower authority than it (an echo).

The repeat is not evidence (authority is never raised), but the message is recalled with the memory
it repeats. The write path (core/write/versions.py) records a mention here; recall reads them with
the memories' evidence, and ``forget`` (core/lifecycle/forget.py) erases them with either end.
"""

from __future__ import annotations

from veramem_desktop.core.storage.store import Connection


def add(conn: Connection, episode_id: str, memory_id: str) -> None:
    """Record that ``episode_id`` repeats ``memory_id`` (a mention already there is kept)."""
    conn.execute(
        "INSERT OR IGNORE INTO mentions(episode_id, memory_id) VALUES (?, ?)", (episode_id, memory_id)
    )
