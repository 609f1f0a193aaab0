"""The reads a forget makes to know what it reaches (no writes): the closure of what it erases
(core/lifecycle/forget.py), the texts it looks for restatements in (core/lifecycle/restatements.py)
and the sentences and evidence a redaction weighs (core/lifecycle/redaction.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode, row_to_episode
from veramem_desktop.core.storage.id_sets import marks
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Kind


def ids_of(conn: Connection, sql: str, params: Any = ()) -> set[str]:
    return {r[0] for r in conn.execute(sql, params).fetchall()}


def closure(
    conn: Connection, memories: set[str], episodes: set[str], keep_cited: bool = False
) -> tuple[set[str], set[str], set[str]]:
    """Grow the erased sets until nothing more depends on them. Returns (memories, episodes, derived).

    ``keep_cited`` (expiry): an erased memory's episode stays when a memory that stays cites it."""
    derived: set[str] = set()
    initial = set(memories)
    while True:
        before = (len(memories), len(episodes))
        sourced = memories - derived
        if sourced:
            # the episodes the erased memories' evidence stands in (not those of an item erased only
            # because it was built from erased ones: its other sources and their words remain)
            found_eps = ids_of(
                conn,
                f"SELECT DISTINCT episode_id FROM evidence WHERE memory_id IN ({marks(sourced)})",
                list(sourced),
            )
            if keep_cited and found_eps:
                found_eps -= ids_of(
                    conn,
                    f"SELECT DISTINCT episode_id FROM evidence WHERE episode_id IN "
                    f"({marks(found_eps)}) AND memory_id NOT IN ({marks(memories)})",
                    [*found_eps, *memories],
                )
            episodes |= found_eps
        if memories:
            # everything derived from an erased memory
            found = ids_of(
                conn,
                f"SELECT derived_id FROM derivations WHERE source_id IN ({marks(memories)})",
                list(memories),
            )
            derived |= found - memories
            memories |= found
        if episodes:
            # memories whose every piece of evidence is erased
            touched = ids_of(
                conn,
                f"SELECT DISTINCT memory_id FROM evidence WHERE episode_id IN ({marks(episodes)})",
                list(episodes),
            )
            for mid in touched - memories:
                left = conn.execute(
                    f"SELECT count(*) FROM evidence WHERE memory_id = ? AND episode_id NOT IN ({marks(episodes)})",
                    [mid, *episodes],
                ).fetchone()[0]
                kind = conn.execute(
                    "SELECT kind, json_extract(metadata, '$.fused_from') IS NOT NULL "
                    "FROM memory_items WHERE id = ?",
                    (mid,),
                ).fetchone()
                # derived kinds and fused memories go with any of their evidence; plain facts only
                # when nothing is left
                if left == 0 or (kind and (kind[0] in (Kind.SUMMARY, Kind.EXPERIENCE) or kind[1])):
                    memories.add(mid)
                    if mid not in initial:
                        derived.add(mid)
        if (len(memories), len(episodes)) == before:
            return memories, episodes, derived


def restorable(conn: Connection, memories: set[str]) -> list[str]:
    """Cold memories sent there by an erased one (a broader memory or a fused one, through a
    ``subsumes`` or ``fused`` link) that survive: with that memory gone, they stand again."""
    if not memories:
        return []
    rows = conn.execute(
        f"SELECT DISTINCT l.dst FROM links l JOIN memory_items m ON m.id = l.dst WHERE l.type IN ('subsumes', 'fused') "
        f"AND l.src IN ({marks(memories)}) AND m.status = 'archived' "
        "AND json_extract(m.metadata, '$.cold_by') = l.src",
        list(memories),
    ).fetchall()
    return sorted(dst for (dst,) in rows if dst not in memories)


# ------------------------------------------------------------------ restatements
def values_of(conn: Connection, memories: Iterable[str]) -> list[tuple[str, Any]]:
    """(id, value) of each memory."""
    ids = sorted(memories)
    return [
        (memory_id, value)
        for memory_id, value in conn.execute(
            f"SELECT id, value FROM memory_items WHERE id IN ({marks(ids)})", ids
        )
    ]


def quotes_of(conn: Connection, memory_id: str) -> list[str]:
    return [
        quote or ""
        for (quote,) in conn.execute("SELECT quote FROM evidence WHERE memory_id = ?", (memory_id,))
    ]


def owners_of(conn: Connection, ids: Iterable[str]) -> list[str | None]:
    """The users the memories and episodes ``ids`` belong to."""
    wanted = sorted(ids)
    m = marks(wanted)
    rows = conn.execute(
        f"SELECT user_id FROM memory_items WHERE id IN ({m}) UNION SELECT user_id FROM episodes WHERE id IN ({m})",
        [*wanted, *wanted],
    ).fetchall()
    return sorted({user_id for (user_id,) in rows}, key=lambda u: u or "")


def sessions_of(conn: Connection, memories: set[str], episodes: set[str]) -> list[str]:
    """The sessions of ``episodes`` and of the episodes ``memories`` quote."""
    rows = conn.execute(
        f"SELECT DISTINCT e.session_id FROM episodes e WHERE e.id IN ({marks(episodes) or 'NULL'}) "
        f"OR e.id IN (SELECT episode_id FROM evidence WHERE memory_id IN ({marks(memories) or 'NULL'}))",
        [*episodes, *memories],
    ).fetchall()
    return [session_id for (session_id,) in rows if session_id is not None]


def episode_texts(
    conn: Connection, user: str | None, sessions: Sequence[str] | None
) -> Iterable[tuple[str, str | None, str]]:
    """(id, session, content) of the user's episodes (in ``sessions`` when given)."""
    if sessions is None:
        yield from conn.execute("SELECT id, session_id, content FROM episodes WHERE user_id IS ?", (user,))
        return
    for session in sessions:
        yield from conn.execute(
            "SELECT id, session_id, content FROM episodes WHERE user_id IS ? AND session_id = ?",
            (user, session),
        )


def memory_texts(
    conn: Connection, user: str | None, sessions: Sequence[str] | None
) -> Iterable[tuple[str, str | None, str]]:
    """(id, session, text) of the user's memories (with ``sessions``: those with evidence in one of them)."""
    if sessions is None:
        yield from conn.execute("SELECT id, session_id, text FROM memory_items WHERE user_id IS ?", (user,))
        return
    yield from conn.execute(
        "SELECT m.id, m.session_id, m.text FROM memory_items m WHERE m.user_id IS ? AND m.id IN "
        "(SELECT ev.memory_id FROM evidence ev JOIN episodes e ON e.id = ev.episode_id "
        f"WHERE e.session_id IN ({marks(list(sessions)) or 'NULL'}))",
        (user, *sessions),
    )


# ------------------------------------------------------------------ redaction
def contents_of(conn: Connection, episodes: Iterable[str]) -> dict[str, str]:
    ids = sorted(episodes)
    return {
        episode_id: content
        for episode_id, content in conn.execute(
            f"SELECT id, content FROM episodes WHERE id IN ({marks(ids)})", ids
        )
    }


def spans_in(conn: Connection, episode_id: str, memories: Iterable[str]) -> list[tuple[int, int]]:
    """The evidence spans of ``memories`` in episode ``episode_id``."""
    ids = sorted(memories)
    rows = conn.execute(
        f"SELECT span_start, span_end FROM evidence WHERE episode_id = ? AND memory_id IN ({marks(ids) or 'NULL'})",
        [episode_id, *ids],
    ).fetchall()
    return [(int(span_start), int(span_end)) for span_start, span_end in rows]


def citing(conn: Connection, episodes: Iterable[str]) -> set[str]:
    """The memories with evidence in one of ``episodes``."""
    ids = sorted(episodes)
    return ids_of(
        conn, f"SELECT DISTINCT memory_id FROM evidence WHERE episode_id IN ({marks(ids) or 'NULL'})", ids
    )


def drawn_from_messages(conn: Connection, memory_id: str) -> bool:
    """Whether the memory is a summary, an experience or a fused memory (it goes with any of its evidence)."""
    row = conn.execute(
        "SELECT kind IN ('summary', 'experience') OR json_extract(metadata, '$.fused_from') IS NOT NULL "
        "FROM memory_items WHERE id = ?",
        (memory_id,),
    ).fetchone()
    return bool(row and row[0])


def evidence_quotes(conn: Connection, memory_id: str) -> list[tuple[str, str]]:
    """(episode id, quote) of each piece of the memory's evidence."""
    return [
        (episode_id, quote)
        for episode_id, quote in conn.execute(
            "SELECT episode_id, quote FROM evidence WHERE memory_id = ?", (memory_id,)
        )
    ]


def built_from(conn: Connection, memories: Iterable[str]) -> set[str]:
    ids = sorted(memories)
    return ids_of(
        conn, f"SELECT derived_id FROM derivations WHERE source_id IN ({marks(ids) or 'NULL'})", ids
    )


def episode(conn: Connection, episode_id: str) -> Episode:
    return row_to_episode(
        conn.execute(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,)).fetchone()
    )


def evidence_in(conn: Connection, episode_id: str) -> list[tuple[str, str, float, str]]:
    """(memory id, quote, score, role) of each piece of evidence in the episode."""
    rows = conn.execute(
        "SELECT memory_id, quote, score, role FROM evidence WHERE episode_id = ?", (episode_id,)
    )
    return [(memory_id, quote, float(score), role) for memory_id, quote, score, role in rows]


def mentioned_in(conn: Connection, episode_id: str) -> set[str]:
    return ids_of(conn, "SELECT memory_id FROM mentions WHERE episode_id = ?", (episode_id,))
