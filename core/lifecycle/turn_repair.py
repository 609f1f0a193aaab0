"""What an erased turn leaves in the turns beside it, and its repair (core/lifecycle/forget.py).

A turn's full-text row starts with the previous turn's line, and the context vectors of the
turns before and after it are built from its words. When ``forget`` erases turns, the next
surviving turn's full-text row is rebuilt from the turns that remain, and the neighbours'
context vectors are dropped, their owners returned so the caller can recompute them.
"""

from __future__ import annotations

from veramem_desktop.core.storage import index_rows
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, row_to_episode
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.turns import episode_fts_text
from veramem_desktop.core.write.ingest import line_of


def neighbours_of(conn: Connection, erased: list[str]) -> set[tuple[str, int]]:
    """(session, turn) of every erased turn whose session may keep other turns."""
    if not erased:
        return set()
    rows = conn.execute(
        f"SELECT session_id, turn_index FROM episodes WHERE id IN ({','.join('?' * len(erased))}) "
        "AND session_id IS NOT NULL",
        erased,
    ).fetchall()
    return {(session_id, int(turn_index)) for session_id, turn_index in rows}


def repair_neighbours(conn: Connection, touched: set[tuple[str, int]]) -> list[str]:
    """The turns around an erased one held its words: the next turn's full-text row (it starts with
    the previous turn's line) and the context vectors of the turns on both sides. The full-text row
    is rebuilt from the turns that remain; the context vectors are dropped (they are derived from
    the erased words) and their owners returned so the caller can recompute them with the model."""
    stale: set[str] = set()
    for session, turn in sorted(touched):
        before = conn.execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND turn_index < ? "
            "ORDER BY turn_index DESC LIMIT 1",
            (session, turn),
        ).fetchone()
        after = conn.execute(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND turn_index > ? "
            "ORDER BY turn_index LIMIT 1",
            (session, turn),
        ).fetchone()
        for row in (before, after):
            if row is not None:
                stale.add(row[0])
                index_rows.remove_vector(conn, "episode_ctx", row[0])
        if after is not None:
            nxt = row_to_episode(after)
            prev_line = None
            if before is not None:
                prev = row_to_episode(before)
                prev_line = line_of(prev.role, prev.source_name, prev.content)
            found = conn.execute(
                "SELECT rowid FROM fts_rows WHERE owner_kind = 'episode' AND owner_id = ?", (nxt.id,)
            ).fetchone()
            if found is not None:
                index_rows.rewrite_episode_fts(
                    conn,
                    found[0],
                    episode_fts_text(line_of(nxt.role, nxt.source_name, nxt.content), prev_line),
                )
    return sorted(stale)
